from enum import StrEnum


class SignalDetailContentType(StrEnum):
    ANALYSIS = "analysis"
    EVENT = "event"

    def __str__(self) -> str:
        return str(self.value)
