from enum import StrEnum


class ListSignalsContentTypeType0(StrEnum):
    ANALYSIS = "analysis"
    EVENT = "event"

    def __str__(self) -> str:
        return str(self.value)
