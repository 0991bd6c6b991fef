from enum import StrEnum


class EntityProfileNotabilityType0(StrEnum):
    HIGH = "High"
    LOW = "Low"
    MEDIUM = "Medium"
    NEGLIGIBLE = "Negligible"

    def __str__(self) -> str:
        return str(self.value)
