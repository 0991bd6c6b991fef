from enum import StrEnum


class EntityProfileDetailType(StrEnum):
    EVENT = "event"
    HARDWARE = "hardware"
    LOCATION = "location"
    MODEL = "model"
    ORGANIZATION = "organization"
    OTHER = "other"
    PERSON = "person"
    REGULATION_POLICY = "regulation_policy"

    def __str__(self) -> str:
        return str(self.value)
