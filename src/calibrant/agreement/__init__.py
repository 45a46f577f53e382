"""Inter-rater agreement statistics with vectorized bootstrap confidence intervals.

Labels are first encoded on a :class:`Scale` as integer codes ``0..K-1`` (``-1`` = missing).
Two-rater statistics (percent agreement, confusion matrix, Cohen's kappa, weighted kappa,
Gwet's AC1) take two code arrays; many-rater statistics (Fleiss' kappa, Krippendorff's alpha)
take a ``(raters, items)`` code matrix. A statistic that is undefined on the data is returned
as :class:`Undefined` with a reason, never as 0, 1 or nan.

The names below are loaded on first use (PEP 562), so a command that needs one small part
(``score`` needs only the interval helpers) does not import numpy-heavy bootstrap code at start.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from calibrant.lazy import lazy_exports

if TYPE_CHECKING:
    from calibrant.agreement.bootstrap import (
        bootstrap_fleiss,
        bootstrap_krippendorff,
        bootstrap_pairwise,
        resample_tables,
    )
    from calibrant.agreement.encode import MISSING, Level, Scale, check_codes, long_to_matrix
    from calibrant.agreement.interpret import (
        ABSTAIN_LABEL,
        LANDIS_KOCH_BANDS,
        AbstentionReport,
        abstention_report,
        items_needed,
        landis_koch_band,
    )
    from calibrant.agreement.multirater import (
        AlphaLevel,
        category_counts,
        fleiss_kappa,
        fleiss_kappa_from_counts,
        krippendorff_alpha,
    )
    from calibrant.agreement.noninferiority import PairedComparison, paired_comparison
    from calibrant.agreement.pairwise import (
        PairwiseStatistic,
        Weights,
        cohen_kappa,
        confusion_matrix,
        gwet_ac1,
        percent_agreement,
        weighted_kappa,
    )
    from calibrant.agreement.perlabel import LabelRates, one_vs_rest
    from calibrant.agreement.report import CriterionReport, PairReport, ci_key, pairwise_report
    from calibrant.agreement.resample import (
        BootstrapResult,
        bootstrap_indices,
        cluster_index,
        percentile_interval,
    )
    from calibrant.agreement.undefined import Undefined, is_defined, or_none

_HOME = {
    "bootstrap_fleiss": "bootstrap",
    "bootstrap_krippendorff": "bootstrap",
    "bootstrap_pairwise": "bootstrap",
    "resample_tables": "bootstrap",
    "MISSING": "encode",
    "Level": "encode",
    "Scale": "encode",
    "check_codes": "encode",
    "long_to_matrix": "encode",
    "ABSTAIN_LABEL": "interpret",
    "LANDIS_KOCH_BANDS": "interpret",
    "AbstentionReport": "interpret",
    "abstention_report": "interpret",
    "items_needed": "interpret",
    "landis_koch_band": "interpret",
    "AlphaLevel": "multirater",
    "category_counts": "multirater",
    "fleiss_kappa": "multirater",
    "fleiss_kappa_from_counts": "multirater",
    "krippendorff_alpha": "multirater",
    "PairedComparison": "noninferiority",
    "paired_comparison": "noninferiority",
    "LabelRates": "perlabel",
    "one_vs_rest": "perlabel",
    "PairwiseStatistic": "pairwise",
    "Weights": "pairwise",
    "cohen_kappa": "pairwise",
    "confusion_matrix": "pairwise",
    "gwet_ac1": "pairwise",
    "percent_agreement": "pairwise",
    "weighted_kappa": "pairwise",
    "CriterionReport": "report",
    "PairReport": "report",
    "ci_key": "report",
    "pairwise_report": "report",
    "BootstrapResult": "resample",
    "bootstrap_indices": "resample",
    "cluster_index": "resample",
    "percentile_interval": "resample",
    "Undefined": "undefined",
    "is_defined": "undefined",
    "or_none": "undefined",
}


__getattr__, __dir__ = lazy_exports(__name__, globals(), _HOME)

__all__ = [
    "ABSTAIN_LABEL",
    "LANDIS_KOCH_BANDS",
    "MISSING",
    "AbstentionReport",
    "AlphaLevel",
    "BootstrapResult",
    "CriterionReport",
    "LabelRates",
    "Level",
    "PairReport",
    "PairedComparison",
    "PairwiseStatistic",
    "Scale",
    "Undefined",
    "Weights",
    "abstention_report",
    "bootstrap_fleiss",
    "bootstrap_indices",
    "bootstrap_krippendorff",
    "bootstrap_pairwise",
    "category_counts",
    "check_codes",
    "ci_key",
    "cluster_index",
    "cohen_kappa",
    "confusion_matrix",
    "fleiss_kappa",
    "fleiss_kappa_from_counts",
    "gwet_ac1",
    "is_defined",
    "items_needed",
    "krippendorff_alpha",
    "landis_koch_band",
    "long_to_matrix",
    "one_vs_rest",
    "or_none",
    "paired_comparison",
    "pairwise_report",
    "percent_agreement",
    "percentile_interval",
    "resample_tables",
    "weighted_kappa",
]
