from enum import StrEnum


class ListSignalsSort(StrEnum):
    CHANGED = "changed"
    PUBLISHED = "published"

    def __str__(self) -> str:
        return str(self.value)
