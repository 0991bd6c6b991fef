from enum import StrEnum


class EntityProfileDetailScale(StrEnum):
    LARGE = "Large"
    MEDIUM = "Medium"
    SMALL = "Small"

    def __str__(self) -> str:
        return str(self.value)
