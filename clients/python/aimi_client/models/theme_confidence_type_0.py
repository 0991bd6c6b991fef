from enum import StrEnum


class ThemeConfidenceType0(StrEnum):
    INSIGNIFICANT = "Insignificant"
    SIGNIFICANT = "Significant"

    def __str__(self) -> str:
        return str(self.value)
