from enum import StrEnum


class GetTrendingEntitiesTypePrimaryType0(StrEnum):
    ORGANIZATION = "Organization"
    OTHER = "Other"
    PERSON = "Person"
    PRODUCT = "Product"

    def __str__(self) -> str:
        return str(self.value)
