from enum import StrEnum


class HealthStatus(StrEnum):
    OK = "ok"
    STARTING = "starting"

    def __str__(self) -> str:
        return str(self.value)
