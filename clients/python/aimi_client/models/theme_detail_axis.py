from enum import StrEnum


class ThemeDetailAxis(StrEnum):
    MARKET_FORCE = "market_force"
    VALUE_CHAIN = "value_chain"

    def __str__(self) -> str:
        return str(self.value)
