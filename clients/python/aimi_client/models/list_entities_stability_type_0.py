from enum import StrEnum


class ListEntitiesStabilityType0(StrEnum):
    STEADY = "Steady"
    VOLATILE = "Volatile"

    def __str__(self) -> str:
        return str(self.value)
