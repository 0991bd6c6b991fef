from enum import StrEnum


class ListStoriesThemeType0(StrEnum):
    ADOPTION_DEMAND = "Adoption & Demand"
    APPLICATIONS = "Applications"
    CAPITAL_INVESTMENT = "Capital & Investment"
    COMPETITIVE_DYNAMICS = "Competitive Dynamics"
    DATA = "Data"
    FOUNDATION_MODELS = "Foundation Models"
    INFRASTRUCTURE = "Infrastructure"
    REGULATORY_LEGAL = "Regulatory & Legal"
    SEMICONDUCTORS_HARDWARE = "Semiconductors & Hardware"
    TALENT_LABOR = "Talent & Labor"
    TECHNOLOGY_SCIENTIFIC_INNOVATION = "Technology & Scientific Innovation"
    TOOLING_PLATFORMS = "Tooling & Platforms"

    def __str__(self) -> str:
        return str(self.value)
