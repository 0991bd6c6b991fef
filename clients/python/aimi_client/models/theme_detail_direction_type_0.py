from enum import StrEnum


class ThemeDetailDirectionType0(StrEnum):
    DECLINING = "Declining"
    RISING = "Rising"
    STABLE = "Stable"

    def __str__(self) -> str:
        return str(self.value)
