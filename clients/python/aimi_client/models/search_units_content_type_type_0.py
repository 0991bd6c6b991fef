from enum import StrEnum


class SearchUnitsContentTypeType0(StrEnum):
    ANALYSIS = "analysis"
    EVENT = "event"

    def __str__(self) -> str:
        return str(self.value)
