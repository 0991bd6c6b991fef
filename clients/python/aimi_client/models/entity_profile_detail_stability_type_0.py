from enum import StrEnum


class EntityProfileDetailStabilityType0(StrEnum):
    STEADY = "Steady"
    VOLATILE = "Volatile"

    def __str__(self) -> str:
        return str(self.value)
