from enum import StrEnum


class ListEntitiesConfidenceType0(StrEnum):
    INSIGNIFICANT = "Insignificant"
    SIGNIFICANT = "Significant"

    def __str__(self) -> str:
        return str(self.value)
