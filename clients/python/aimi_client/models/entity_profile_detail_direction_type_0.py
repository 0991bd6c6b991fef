from enum import StrEnum


class EntityProfileDetailDirectionType0(StrEnum):
    DECLINING = "Declining"
    NEW = "New"
    RISING = "Rising"
    STABLE = "Stable"

    def __str__(self) -> str:
        return str(self.value)
