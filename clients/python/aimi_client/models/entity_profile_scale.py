from enum import StrEnum


class EntityProfileScale(StrEnum):
    LARGE = "Large"
    MEDIUM = "Medium"
    SMALL = "Small"

    def __str__(self) -> str:
        return str(self.value)
