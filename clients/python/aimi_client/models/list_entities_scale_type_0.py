from enum import StrEnum


class ListEntitiesScaleType0(StrEnum):
    LARGE = "Large"
    MEDIUM = "Medium"
    SMALL = "Small"

    def __str__(self) -> str:
        return str(self.value)
