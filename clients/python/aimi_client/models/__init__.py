"""Contains all the data models used in inputs/outputs"""

from .citation import Citation
from .contesting_claim import ContestingClaim
from .corroboration import Corroboration
from .embeddings import Embeddings
from .entity_list import EntityList
from .entity_profile import EntityProfile
from .entity_profile_confidence_type_0 import EntityProfileConfidenceType0
from .entity_profile_content_type_mix import EntityProfileContentTypeMix
from .entity_profile_detail import EntityProfileDetail
from .entity_profile_detail_confidence_type_0 import EntityProfileDetailConfidenceType0
from .entity_profile_detail_content_type_mix import EntityProfileDetailContentTypeMix
from .entity_profile_detail_direction_type_0 import EntityProfileDetailDirectionType0
from .entity_profile_detail_market_force_distribution import EntityProfileDetailMarketForceDistribution
from .entity_profile_detail_notability_type_0 import EntityProfileDetailNotabilityType0
from .entity_profile_detail_scale import EntityProfileDetailScale
from .entity_profile_detail_stability_type_0 import EntityProfileDetailStabilityType0
from .entity_profile_detail_type import EntityProfileDetailType
from .entity_profile_detail_value_chain_distribution import EntityProfileDetailValueChainDistribution
from .entity_profile_direction_type_0 import EntityProfileDirectionType0
from .entity_profile_market_force_distribution import EntityProfileMarketForceDistribution
from .entity_profile_notability_type_0 import EntityProfileNotabilityType0
from .entity_profile_scale import EntityProfileScale
from .entity_profile_stability_type_0 import EntityProfileStabilityType0
from .entity_profile_type import EntityProfileType
from .entity_profile_value_chain_distribution import EntityProfileValueChainDistribution
from .entity_ref import EntityRef
from .entity_ref_type import EntityRefType
from .entity_trend import EntityTrend
from .error_body import ErrorBody
from .error_detail import ErrorDetail
from .evidence_preview import EvidencePreview
from .get_theme_axis import GetThemeAxis
from .get_theme_label import GetThemeLabel
from .get_trending_entities_mode import GetTrendingEntitiesMode
from .get_trending_entities_theme_type_0 import GetTrendingEntitiesThemeType0
from .get_trending_entities_type_primary_type_0 import GetTrendingEntitiesTypePrimaryType0
from .health import Health
from .health_status import HealthStatus
from .http_validation_error import HTTPValidationError
from .list_entities_confidence_type_0 import ListEntitiesConfidenceType0
from .list_entities_direction_type_0 import ListEntitiesDirectionType0
from .list_entities_notability_type_0 import ListEntitiesNotabilityType0
from .list_entities_scale_type_0 import ListEntitiesScaleType0
from .list_entities_sort import ListEntitiesSort
from .list_entities_stability_type_0 import ListEntitiesStabilityType0
from .list_entities_theme_type_0 import ListEntitiesThemeType0
from .list_entities_type_type_0 import ListEntitiesTypeType0
from .list_signals_content_type_type_0 import ListSignalsContentTypeType0
from .list_signals_sort import ListSignalsSort
from .list_signals_theme_type_0 import ListSignalsThemeType0
from .list_stories_theme_type_0 import ListStoriesThemeType0
from .list_themes_axis_type_0 import ListThemesAxisType0
from .materialized_views import MaterializedViews
from .other_claim import OtherClaim
from .refresh_result import RefreshResult
from .related_entity import RelatedEntity
from .related_entity_type import RelatedEntityType
from .related_theme import RelatedTheme
from .related_theme_axis import RelatedThemeAxis
from .search_hit import SearchHit
from .search_results import SearchResults
from .search_units_content_type_type_0 import SearchUnitsContentTypeType0
from .search_units_role_type_0 import SearchUnitsRoleType0
from .search_units_theme_type_0 import SearchUnitsThemeType0
from .signal_card import SignalCard
from .signal_card_content_type import SignalCardContentType
from .signal_detail import SignalDetail
from .signal_detail_content_type import SignalDetailContentType
from .signal_list import SignalList
from .snapshot_info import SnapshotInfo
from .snippet import Snippet
from .story import Story
from .story_detail import StoryDetail
from .story_list import StoryList
from .story_part import StoryPart
from .story_part_unit import StoryPartUnit
from .story_signal import StorySignal
from .theme import Theme
from .theme_axis import ThemeAxis
from .theme_confidence_type_0 import ThemeConfidenceType0
from .theme_detail import ThemeDetail
from .theme_detail_axis import ThemeDetailAxis
from .theme_detail_confidence_type_0 import ThemeDetailConfidenceType0
from .theme_detail_direction_type_0 import ThemeDetailDirectionType0
from .theme_detail_notability_type_0 import ThemeDetailNotabilityType0
from .theme_detail_stability_type_0 import ThemeDetailStabilityType0
from .theme_direction_type_0 import ThemeDirectionType0
from .theme_list import ThemeList
from .theme_notability_type_0 import ThemeNotabilityType0
from .theme_stability_type_0 import ThemeStabilityType0
from .theme_trend import ThemeTrend
from .themes import Themes
from .trending_item import TrendingItem
from .trending_item_content_type_mix import TrendingItemContentTypeMix
from .trending_item_market_force_distribution import TrendingItemMarketForceDistribution
from .trending_item_type_primary import TrendingItemTypePrimary
from .trending_item_value_chain_distribution import TrendingItemValueChainDistribution
from .trending_list import TrendingList
from .trending_trend import TrendingTrend
from .unit import Unit
from .unit_role import UnitRole
from .validation_error import ValidationError
from .validation_error_context import ValidationErrorContext
from .verification import Verification

__all__ = (
    "Citation",
    "ContestingClaim",
    "Corroboration",
    "Embeddings",
    "EntityList",
    "EntityProfile",
    "EntityProfileConfidenceType0",
    "EntityProfileContentTypeMix",
    "EntityProfileDetail",
    "EntityProfileDetailConfidenceType0",
    "EntityProfileDetailContentTypeMix",
    "EntityProfileDetailDirectionType0",
    "EntityProfileDetailMarketForceDistribution",
    "EntityProfileDetailNotabilityType0",
    "EntityProfileDetailScale",
    "EntityProfileDetailStabilityType0",
    "EntityProfileDetailType",
    "EntityProfileDetailValueChainDistribution",
    "EntityProfileDirectionType0",
    "EntityProfileMarketForceDistribution",
    "EntityProfileNotabilityType0",
    "EntityProfileScale",
    "EntityProfileStabilityType0",
    "EntityProfileType",
    "EntityProfileValueChainDistribution",
    "EntityRef",
    "EntityRefType",
    "EntityTrend",
    "ErrorBody",
    "ErrorDetail",
    "EvidencePreview",
    "GetThemeAxis",
    "GetThemeLabel",
    "GetTrendingEntitiesMode",
    "GetTrendingEntitiesThemeType0",
    "GetTrendingEntitiesTypePrimaryType0",
    "Health",
    "HealthStatus",
    "HTTPValidationError",
    "ListEntitiesConfidenceType0",
    "ListEntitiesDirectionType0",
    "ListEntitiesNotabilityType0",
    "ListEntitiesScaleType0",
    "ListEntitiesSort",
    "ListEntitiesStabilityType0",
    "ListEntitiesThemeType0",
    "ListEntitiesTypeType0",
    "ListSignalsContentTypeType0",
    "ListSignalsSort",
    "ListSignalsThemeType0",
    "ListStoriesThemeType0",
    "ListThemesAxisType0",
    "MaterializedViews",
    "OtherClaim",
    "RefreshResult",
    "RelatedEntity",
    "RelatedEntityType",
    "RelatedTheme",
    "RelatedThemeAxis",
    "SearchHit",
    "SearchResults",
    "SearchUnitsContentTypeType0",
    "SearchUnitsRoleType0",
    "SearchUnitsThemeType0",
    "SignalCard",
    "SignalCardContentType",
    "SignalDetail",
    "SignalDetailContentType",
    "SignalList",
    "SnapshotInfo",
    "Snippet",
    "Story",
    "StoryDetail",
    "StoryList",
    "StoryPart",
    "StoryPartUnit",
    "StorySignal",
    "Theme",
    "ThemeAxis",
    "ThemeConfidenceType0",
    "ThemeDetail",
    "ThemeDetailAxis",
    "ThemeDetailConfidenceType0",
    "ThemeDetailDirectionType0",
    "ThemeDetailNotabilityType0",
    "ThemeDetailStabilityType0",
    "ThemeDirectionType0",
    "ThemeList",
    "ThemeNotabilityType0",
    "Themes",
    "ThemeStabilityType0",
    "ThemeTrend",
    "TrendingItem",
    "TrendingItemContentTypeMix",
    "TrendingItemMarketForceDistribution",
    "TrendingItemTypePrimary",
    "TrendingItemValueChainDistribution",
    "TrendingList",
    "TrendingTrend",
    "Unit",
    "UnitRole",
    "ValidationError",
    "ValidationErrorContext",
    "Verification",
)
