from enum import StrEnum


class WebhookEndpointWithSecretEventsItem(StrEnum):
    BULK_SEND_COMPLETED = "bulk_send.completed"
    ENVELOPE_COMPLETED = "envelope.completed"
    ENVELOPE_CORRECTED = "envelope.corrected"
    ENVELOPE_CREATED = "envelope.created"
    ENVELOPE_EMAIL_FAILED = "envelope.email_failed"
    ENVELOPE_SEAL_UPGRADED = "envelope.seal_upgraded"
    ENVELOPE_SENT = "envelope.sent"
    ENVELOPE_SIGNER_COMPLETED = "envelope.signer_completed"
    ENVELOPE_SIGNER_DECLINED = "envelope.signer_declined"
    ENVELOPE_SIGNER_VIEWED = "envelope.signer_viewed"
    ENVELOPE_VOIDED = "envelope.voided"
    SIGNER_LOCKED = "signer.locked"
    SIGNER_REASSIGNED = "signer.reassigned"
    VALUE_13 = "*"

    def __str__(self) -> str:
        return str(self.value)
