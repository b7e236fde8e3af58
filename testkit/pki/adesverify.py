"""pyHanko's AdES validation of every signature in a PDF (ETSI EN 319 102-1 with the long-term
process: document timestamps as proof of existence, validation material from the DSS), with
online fetching turned off: what a validator can conclude from the file alone, years later.

    python3 adesverify.py FILE ROOT_PEM [VALIDATION_TIME_ISO8601]

Prints one JSON line per regular signature (field, bottom line, AdES indication, the summary)
and exits 0 when every one passed, 1 otherwise. The test root is the only trust anchor.
"""

import asyncio
import json
import sys

from pyhanko.keys import load_cert_from_pemder
from pyhanko.pdf_utils.misc import isoparse
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.diff_analysis import DEFAULT_DIFF_POLICY
from pyhanko.sign.validation.ades import ades_lta_validation
from pyhanko.sign.validation.policy_decl import (
    CertificateFetchingRule,
    PdfSignatureValidationSpec,
    RevinfoOnlineFetchingRule,
    RevocationInfoGatheringSpec,
    SignatureValidationSpec,
)
from pyhanko_certvalidator.context import CertValidationPolicySpec
from pyhanko_certvalidator.ltv.types import ValidationTimingInfo
from pyhanko_certvalidator.policy_decl import (
    REQUIRE_REVINFO,
    CertRevTrustPolicy,
    FreshnessReqType,
)
from pyhanko_certvalidator.registry import SimpleTrustManager


def main() -> int:
    path, roots = sys.argv[1], sys.argv[2].split(",")
    at = sys.argv[3] if len(sys.argv) > 3 else None
    anchors = [load_cert_from_pemder(p) for p in roots]
    policy = CertValidationPolicySpec(
        trust_manager=SimpleTrustManager.build(trust_roots=anchors),
        revinfo_policy=CertRevTrustPolicy(
            REQUIRE_REVINFO,
            freshness=None,
            freshness_req_type=FreshnessReqType.MAX_DIFF_REVOCATION_VALIDATION,
        ),
    )
    spec = PdfSignatureValidationSpec(
        signature_validation_spec=SignatureValidationSpec(
            cert_validation_policy=policy,
            revinfo_gathering_policy=RevocationInfoGatheringSpec(
                online_fetching_rule=RevinfoOnlineFetchingRule.LOCAL_ONLY,
                certificate_fetching_rule=CertificateFetchingRule.NEVER_FETCH,
            ),
        ),
        diff_policy=DEFAULT_DIFF_POLICY,
    )
    if at:
        moment = isoparse(at)
        timing = ValidationTimingInfo(moment, moment, point_in_time_validation=True)
    else:
        timing = ValidationTimingInfo.now()
    ok = True
    with open(path, "rb") as f:
        reader = PdfFileReader(f)
        for sig in reader.embedded_regular_signatures:
            try:
                result = asyncio.run(ades_lta_validation(sig, spec, timing_info=timing))
                status = result.api_status
                line = {
                    "field": sig.field_name,
                    "passed": bool(status.bottom_line),
                    "indication": str(result.ades_subindic),
                    "summary": status.summary(),
                    "failure": result.failure_msg,
                }
            except Exception as e:  # a validation error is a failed verdict, with its reason
                line = {"field": sig.field_name, "passed": False, "error": f"{type(e).__name__}: {e}"}
            ok &= line["passed"]
            print(json.dumps(line))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
