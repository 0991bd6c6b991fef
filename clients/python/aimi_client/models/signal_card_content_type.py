from enum import StrEnum


class SignalCardContentType(StrEnum):
    ANALYSIS = "analysis"
    EVENT = "event"

    def __str__(self) -> str:
        return str(self.value)
