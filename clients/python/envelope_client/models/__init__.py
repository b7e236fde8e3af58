"""Contains all the data models used in inputs/outputs"""

from .account import Account
from .account_signing_certificate import AccountSigningCertificate
from .api_key import ApiKey
from .api_key_mode import ApiKeyMode
from .attachment import Attachment
from .attachment_content_type import AttachmentContentType
from .balance import Balance
from .builder_url import BuilderUrl
from .builder_url_request import BuilderUrlRequest
from .bulk_failure import BulkFailure
from .bulk_row_input import BulkRowInput
from .bulk_row_input_data import BulkRowInputData
from .bulk_send import BulkSend
from .bulk_send_list import BulkSendList
from .bulk_send_status import BulkSendStatus
from .cc_input import CcInput
from .cc_recipient import CcRecipient
from .condition import Condition
from .create_bulk_send_multipart import CreateBulkSendMultipart
from .create_bulk_send_multipart_delivery import CreateBulkSendMultipartDelivery
from .create_bulk_send_request import CreateBulkSendRequest
from .create_bulk_send_request_delivery import CreateBulkSendRequestDelivery
from .create_envelope_multipart import CreateEnvelopeMultipart
from .create_envelope_multipart_delivery import CreateEnvelopeMultipartDelivery
from .create_envelope_multipart_send import CreateEnvelopeMultipartSend
from .create_envelope_multipart_signature_page import (
    CreateEnvelopeMultipartSignaturePage,
)
from .create_envelope_multipart_signing_order import CreateEnvelopeMultipartSigningOrder
from .create_envelope_request import CreateEnvelopeRequest
from .create_envelope_request_data import CreateEnvelopeRequestData
from .create_envelope_request_delivery import CreateEnvelopeRequestDelivery
from .create_template_multipart import CreateTemplateMultipart
from .create_template_request import CreateTemplateRequest
from .create_webhook_endpoint_request import CreateWebhookEndpointRequest
from .create_webhook_endpoint_request_events_item import (
    CreateWebhookEndpointRequestEventsItem,
)
from .deleted import Deleted
from .deleted_object import DeletedObject
from .delivery_attempt import DeliveryAttempt
from .document import Document
from .document_input import DocumentInput
from .envelope import Envelope
from .envelope_delivery import EnvelopeDelivery
from .envelope_files import EnvelopeFiles
from .envelope_list import EnvelopeList
from .envelope_metadata import EnvelopeMetadata
from .envelope_seal import EnvelopeSeal
from .envelope_status import EnvelopeStatus
from .error import Error
from .error_code import ErrorCode
from .error_type import ErrorType
from .event import Event
from .event_data import EventData
from .event_list import EventList
from .event_type import EventType
from .field import Field
from .field_input import FieldInput
from .field_input_type import FieldInputType
from .field_type import FieldType
from .file_link import FileLink
from .file_link_kind import FileLinkKind
from .get_envelope_file_kind import GetEnvelopeFileKind
from .get_open_api_document_response_200 import GetOpenApiDocumentResponse200
from .health import Health
from .in_person import InPerson
from .list_events_type import ListEventsType
from .metadata import Metadata
from .page_layout import PageLayout
from .page_layout_documents_item import PageLayoutDocumentsItem
from .page_layout_documents_item_pages_item import PageLayoutDocumentsItemPagesItem
from .previous_signer import PreviousSigner
from .ready import Ready
from .reassign_request import ReassignRequest
from .reminder import Reminder
from .reminder_skip import ReminderSkip
from .reminder_skip_reason import ReminderSkipReason
from .reminder_target import ReminderTarget
from .resend_request import ResendRequest
from .role_signer_input import RoleSignerInput
from .role_signer_input_kind import RoleSignerInputKind
from .seal_level import SealLevel
from .signer import Signer
from .signer_auth_input_type_0 import SignerAuthInputType0
from .signer_auth_input_type_1 import SignerAuthInputType1
from .signer_auth_type_1 import SignerAuthType1
from .signer_auth_type_1_method import SignerAuthType1Method
from .signer_email import SignerEmail
from .signer_email_failure_reason import SignerEmailFailureReason
from .signer_email_kind import SignerEmailKind
from .signer_email_status import SignerEmailStatus
from .signer_input import SignerInput
from .signer_input_kind import SignerInputKind
from .signer_kind import SignerKind
from .signer_ref import SignerRef
from .signer_ref_kind import SignerRefKind
from .signer_ref_status import SignerRefStatus
from .signer_status import SignerStatus
from .signers_type_1 import SignersType1
from .signing_url import SigningUrl
from .signing_url_request import SigningUrlRequest
from .template import Template
from .template_list import TemplateList
from .unlock_signer_body import UnlockSignerBody
from .unready import Unready
from .unready_reason import UnreadyReason
from .update_envelope_request import UpdateEnvelopeRequest
from .update_template_request import UpdateTemplateRequest
from .update_template_request_fields_type_0_item import (
    UpdateTemplateRequestFieldsType0Item,
)
from .update_webhook_endpoint_request import UpdateWebhookEndpointRequest
from .update_webhook_endpoint_request_events_item import (
    UpdateWebhookEndpointRequestEventsItem,
)
from .update_webhook_endpoint_request_status import UpdateWebhookEndpointRequestStatus
from .void_request import VoidRequest
from .webhook_delivery import WebhookDelivery
from .webhook_delivery_list import WebhookDeliveryList
from .webhook_delivery_status import WebhookDeliveryStatus
from .webhook_endpoint import WebhookEndpoint
from .webhook_endpoint_events_item import WebhookEndpointEventsItem
from .webhook_endpoint_list import WebhookEndpointList
from .webhook_endpoint_status import WebhookEndpointStatus
from .webhook_endpoint_with_secret import WebhookEndpointWithSecret
from .webhook_endpoint_with_secret_events_item import (
    WebhookEndpointWithSecretEventsItem,
)
from .webhook_endpoint_with_secret_status import WebhookEndpointWithSecretStatus

__all__ = (
    "Account",
    "AccountSigningCertificate",
    "ApiKey",
    "ApiKeyMode",
    "Attachment",
    "AttachmentContentType",
    "Balance",
    "BuilderUrl",
    "BuilderUrlRequest",
    "BulkFailure",
    "BulkRowInput",
    "BulkRowInputData",
    "BulkSend",
    "BulkSendList",
    "BulkSendStatus",
    "CcInput",
    "CcRecipient",
    "Condition",
    "CreateBulkSendMultipart",
    "CreateBulkSendMultipartDelivery",
    "CreateBulkSendRequest",
    "CreateBulkSendRequestDelivery",
    "CreateEnvelopeMultipart",
    "CreateEnvelopeMultipartDelivery",
    "CreateEnvelopeMultipartSend",
    "CreateEnvelopeMultipartSignaturePage",
    "CreateEnvelopeMultipartSigningOrder",
    "CreateEnvelopeRequest",
    "CreateEnvelopeRequestData",
    "CreateEnvelopeRequestDelivery",
    "CreateTemplateMultipart",
    "CreateTemplateRequest",
    "CreateWebhookEndpointRequest",
    "CreateWebhookEndpointRequestEventsItem",
    "Deleted",
    "DeletedObject",
    "DeliveryAttempt",
    "Document",
    "DocumentInput",
    "Envelope",
    "EnvelopeDelivery",
    "EnvelopeFiles",
    "EnvelopeList",
    "EnvelopeMetadata",
    "EnvelopeSeal",
    "EnvelopeStatus",
    "Error",
    "ErrorCode",
    "ErrorType",
    "Event",
    "EventData",
    "EventList",
    "EventType",
    "Field",
    "FieldInput",
    "FieldInputType",
    "FieldType",
    "FileLink",
    "FileLinkKind",
    "GetEnvelopeFileKind",
    "GetOpenApiDocumentResponse200",
    "Health",
    "InPerson",
    "ListEventsType",
    "Metadata",
    "PageLayout",
    "PageLayoutDocumentsItem",
    "PageLayoutDocumentsItemPagesItem",
    "PreviousSigner",
    "Ready",
    "ReassignRequest",
    "Reminder",
    "ReminderSkip",
    "ReminderSkipReason",
    "ReminderTarget",
    "ResendRequest",
    "RoleSignerInput",
    "RoleSignerInputKind",
    "SealLevel",
    "Signer",
    "SignerAuthInputType0",
    "SignerAuthInputType1",
    "SignerAuthType1",
    "SignerAuthType1Method",
    "SignerEmail",
    "SignerEmailFailureReason",
    "SignerEmailKind",
    "SignerEmailStatus",
    "SignerInput",
    "SignerInputKind",
    "SignerKind",
    "SignerRef",
    "SignerRefKind",
    "SignerRefStatus",
    "SignerStatus",
    "SignersType1",
    "SigningUrl",
    "SigningUrlRequest",
    "Template",
    "TemplateList",
    "UnlockSignerBody",
    "Unready",
    "UnreadyReason",
    "UpdateEnvelopeRequest",
    "UpdateTemplateRequest",
    "UpdateTemplateRequestFieldsType0Item",
    "UpdateWebhookEndpointRequest",
    "UpdateWebhookEndpointRequestEventsItem",
    "UpdateWebhookEndpointRequestStatus",
    "VoidRequest",
    "WebhookDelivery",
    "WebhookDeliveryList",
    "WebhookDeliveryStatus",
    "WebhookEndpoint",
    "WebhookEndpointEventsItem",
    "WebhookEndpointList",
    "WebhookEndpointStatus",
    "WebhookEndpointWithSecret",
    "WebhookEndpointWithSecretEventsItem",
    "WebhookEndpointWithSecretStatus",
)
