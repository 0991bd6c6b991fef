from enum import StrEnum


class ThemeDetailConfidenceType0(StrEnum):
    INSIGNIFICANT = "Insignificant"
    SIGNIFICANT = "Significant"

    def __str__(self) -> str:
        return str(self.value)
