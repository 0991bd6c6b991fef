from enum import StrEnum


class EntityProfileDetailNotabilityType0(StrEnum):
    HIGH = "High"
    LOW = "Low"
    MEDIUM = "Medium"
    NEGLIGIBLE = "Negligible"

    def __str__(self) -> str:
        return str(self.value)
