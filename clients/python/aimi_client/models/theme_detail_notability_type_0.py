from enum import StrEnum


class ThemeDetailNotabilityType0(StrEnum):
    HIGH = "High"
    LOW = "Low"
    MEDIUM = "Medium"
    NEGLIGIBLE = "Negligible"

    def __str__(self) -> str:
        return str(self.value)
