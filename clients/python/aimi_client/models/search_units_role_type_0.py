from enum import StrEnum


class SearchUnitsRoleType0(StrEnum):
    ARGUMENT = "argument"
    CLAIM = "claim"
    SYNOPSIS = "synopsis"
    THESIS = "thesis"

    def __str__(self) -> str:
        return str(self.value)
