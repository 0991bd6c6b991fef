from enum import StrEnum


class ThemeStabilityType0(StrEnum):
    STEADY = "Steady"
    VOLATILE = "Volatile"

    def __str__(self) -> str:
        return str(self.value)
