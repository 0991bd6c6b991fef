from enum import StrEnum


class GetTrendingEntitiesMode(StrEnum):
    CONSISTENT = "consistent"
    HOT = "hot"
    NEW = "new"
    RISING = "rising"

    def __str__(self) -> str:
        return str(self.value)
