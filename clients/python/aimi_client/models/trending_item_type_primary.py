from enum import StrEnum


class TrendingItemTypePrimary(StrEnum):
    ORGANIZATION = "Organization"
    OTHER = "Other"
    PERSON = "Person"
    PRODUCT = "Product"

    def __str__(self) -> str:
        return str(self.value)
