from enum import StrEnum


class ThemeDetailStabilityType0(StrEnum):
    STEADY = "Steady"
    VOLATILE = "Volatile"

    def __str__(self) -> str:
        return str(self.value)
