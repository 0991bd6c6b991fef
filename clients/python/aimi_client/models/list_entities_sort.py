from enum import StrEnum


class ListEntitiesSort(StrEnum):
    FIRST_SEEN = "first_seen"
    SIGNAL_COUNT = "signal_count"
    TREND = "trend"

    def __str__(self) -> str:
        return str(self.value)
