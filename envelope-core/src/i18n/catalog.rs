//! The message catalogues: one Fluent file per language (`envelope-core/locales/<code>.ftl`),
//! compiled into the binary with `include_str!`, and [`Msg`], the keys the code may use.
//!
//! Two ways to format a message:
//! - [`text`]: plain text (emails' text part, email subjects): the catalogue's words and the
//!   arguments as they are.
//! - [`html`]: HTML: the catalogue's own words are escaped (a translation may hold `&` or `<`),
//!   [`Arg::Text`] arguments are escaped, [`Arg::Html`] arguments (markup the caller built from
//!   escaped parts, such as `<strong>…</strong>`) go in as they are. The result is safe in
//!   element content and in double-quoted attributes.
//!
//! Fluent's Unicode isolation marks (U+2068/U+2069 around each argument) are turned off: the
//! output is plain text and HTML for left-to-right languages, where they would only be stray
//! invisible characters in subjects, copied links and tests.
//!
//! Adding a message: one line in `messages!` below and the message in every `.ftl` file. The
//! tests in `i18n/tests.rs` fail until every catalogue has every key of [`Msg`], no other key,
//! and the same variables as English.

use std::borrow::Cow;
use std::sync::LazyLock;

use fluent_bundle::concurrent::FluentBundle;
use fluent_bundle::{FluentArgs, FluentResource, FluentValue};

use super::Lang;

/// The catalogue files, by language.
pub(crate) fn source(lang: Lang) -> &'static str {
    match lang {
        Lang::En => include_str!("../../locales/en.ftl"),
        Lang::De => include_str!("../../locales/de.ftl"),
        Lang::Fr => include_str!("../../locales/fr.ftl"),
        Lang::Es => include_str!("../../locales/es.ftl"),
        Lang::It => include_str!("../../locales/it.ftl"),
        Lang::Pt => include_str!("../../locales/pt.ftl"),
        Lang::Nl => include_str!("../../locales/nl.ftl"),
        Lang::Pl => include_str!("../../locales/pl.ftl"),
    }
}

macro_rules! messages {
    ($($variant:ident = $key:literal,)*) => {
        /// A message of the catalogues. Each variant is one key of every `.ftl` file.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Msg {
            $(
                #[doc = concat!("The message `", $key, "` of every catalogue.")]
                $variant,
            )*
        }

        impl Msg {
            /// Every message, in catalogue order.
            pub const ALL: &[Msg] = &[$(Msg::$variant,)*];

            /// The message's key in the `.ftl` files.
            pub fn key(self) -> &'static str {
                match self {
                    $(Msg::$variant => $key,)*
                }
            }
        }
    };
}

messages! {
    // Shared pieces.
    Quoted = "quoted",
    Required = "required",
    Optional = "optional",
    // Emails to signers (and carbon copies).
    EmailHello = "email-hello",
    EmailFooter = "email-footer",
    EmailButtonSign = "email-button-sign",
    EmailOpenLink = "email-open-link",
    EmailFallbackLink = "email-fallback-link",
    EmailLinkUntil = "email-link-until",
    EmailRequestSubject = "email-request-subject",
    EmailRequestBody = "email-request-body",
    EmailReminderSubject = "email-reminder-subject",
    EmailReminderBody = "email-reminder-body",
    EmailVoidedSubject = "email-voided-subject",
    EmailVoidedBody = "email-voided-body",
    EmailReason = "email-reason",
    EmailNothingToDo = "email-nothing-to-do",
    EmailCompletedSubject = "email-completed-subject",
    EmailCompletedBody = "email-completed-body",
    EmailCompletedAttached = "email-completed-attached",
    EmailCompletedNotAttached = "email-completed-not-attached",
    EmailCopyBody = "email-copy-body",
    EmailCopyAttached = "email-copy-attached",
    EmailCopyTooLarge = "email-copy-too-large",
    EmailCopyDownload = "email-copy-download",
    EmailCodeSubject = "email-code-subject",
    EmailCodeBody = "email-code-body",
    EmailCodeUse = "email-code-use",
    EmailCodeIgnore = "email-code-ignore",
    // The signing page: frame and form.
    PageSkip = "page-skip",
    PageTitleSign = "page-title-sign",
    PageLead = "page-lead",
    PageSenderMessage = "page-sender-message",
    PageDocument = "page-document",
    PageDocumentFrame = "page-document-frame",
    PageOpenDocument = "page-open-document",
    PagePicture = "page-picture",
    PageForRole = "page-for-role",
    PageNextField = "page-next-field",
    PageSpotSign = "page-spot-sign",
    PageDone = "page-done",
    PageFieldsDone = "page-fields-done",
    PageYourFields = "page-your-fields",
    PageLabelSignature = "page-label-signature",
    PageLabelInitials = "page-label-initials",
    PageLabelDate = "page-label-date",
    PageLabelReason = "page-label-reason",
    PageLabelNumbered = "page-label-numbered",
    PageOnPage = "page-on-page",
    PageModeType = "page-mode-type",
    PageModeDraw = "page-mode-draw",
    PageTypeSignature = "page-type-signature",
    PageTypeInitials = "page-type-initials",
    PageDrawHint = "page-draw-hint",
    PageDrawingArea = "page-drawing-area",
    PageClearDrawing = "page-clear-drawing",
    PageDateHint = "page-date-hint",
    PageChooseOption = "page-choose-option",
    PageNumberHint = "page-number-hint",
    PageComputedHint = "page-computed-hint",
    PageAttachmentHint = "page-attachment-hint",
    PageAttachmentCamera = "page-attachment-camera",
    PageSignaturePageHint = "page-signature-page-hint",
    PageConsent = "page-consent",
    PageConsentHint = "page-consent-hint",
    PageSign = "page-sign",
    PageSigning = "page-signing",
    PageDrawRequired = "page-draw-required",
    PageDeclineSummary = "page-decline-summary",
    PageDeclineReason = "page-decline-reason",
    PageDeclineHint = "page-decline-hint",
    PageDecline = "page-decline",
    // The signing page: the states of a link.
    StateThanks = "state-thanks",
    StateSignedTitle = "state-signed-title",
    StateSigned = "state-signed",
    StateOthersEmail = "state-others-email",
    StateOthersSender = "state-others-sender",
    StateCompletedTitle = "state-completed-title",
    StateCompleted = "state-completed",
    StateCompletedEmail = "state-completed-email",
    StateCompletedSender = "state-completed-sender",
    StateWaitTitle = "state-wait-title",
    StateWait = "state-wait",
    StateWaitEmail = "state-wait-email",
    StateWaitSender = "state-wait-sender",
    StateDeclinedTitle = "state-declined-title",
    StateDeclined = "state-declined",
    StateDeclinedNote = "state-declined-note",
    StateVoidedTitle = "state-voided-title",
    StateVoided = "state-voided",
    StateVoidedReason = "state-voided-reason",
    StateExpiredTitle = "state-expired-title",
    StateExpired = "state-expired",
    StateExpiredNote = "state-expired-note",
    // The signing page: failures and refused values.
    ErrorUnknownTitle = "error-unknown-title",
    ErrorUnknownHeading = "error-unknown-heading",
    ErrorUnknown = "error-unknown",
    ErrorRateTitle = "error-rate-title",
    ErrorRate = "error-rate",
    ErrorMethodTitle = "error-method-title",
    ErrorMethod = "error-method",
    ErrorFormTitle = "error-form-title",
    ErrorForm = "error-form",
    ErrorDeletedTitle = "error-deleted-title",
    ErrorDeleted = "error-deleted",
    ErrorBusyTitle = "error-busy-title",
    ErrorBusy = "error-busy",
    ErrorSlowTitle = "error-slow-title",
    ErrorSlow = "error-slow",
    ErrorGenericTitle = "error-generic-title",
    ErrorGeneric = "error-generic",
    ErrorRefusedTitle = "error-refused-title",
    ErrorRefused = "error-refused",
    ErrorConsent = "error-consent",
    ErrorMissing = "error-missing",
    ErrorInvalid = "error-invalid",
    ErrorInvalidDetail = "error-invalid-detail",
    ErrorValueEmpty = "error-value-empty",
    ErrorValueNotOption = "error-value-not-option",
    ErrorValueNotNumber = "error-value-not-number",
    ErrorFormulaNoValue = "error-formula-no-value",
    ErrorFileType = "error-file-type",
    ErrorFileTooBig = "error-file-too-big",
    ErrorFileUnreadable = "error-file-unreadable",
    ErrorValueTooLong = "error-value-too-long",
    ErrorValueCharacter = "error-value-character",
    ErrorDrawingTooBig = "error-drawing-too-big",
    ErrorDrawingUnreadable = "error-drawing-unreadable",
    ErrorDrawingBlank = "error-drawing-blank",
    ErrorUnknownValue = "error-unknown-value",
    // The signing page: the code step (extensions E2).
    CodeTitleAccess = "code-title-access",
    CodeTitleEmail = "code-title-email",
    CodeLead = "code-lead",
    CodeIntroAccess = "code-intro-access",
    CodeIntroEmail = "code-intro-email",
    CodeYourEmail = "code-your-email",
    CodeLabelAccess = "code-label-access",
    CodeLabelEmail = "code-label-email",
    CodeAttemptsLeft = "code-attempts-left",
    CodeContinue = "code-continue",
    CodeNoEmail = "code-no-email",
    CodeSendNew = "code-send-new",
    CodeSent = "code-sent",
    CodeWrong = "code-wrong",
    CodeLocked = "code-locked",
    CodeExpired = "code-expired",
    CodeTooSoon = "code-too-soon",
    // The code step's own request for a code, the lock ladder's last step and the daily cap
    // (extensions E8).
    CodeIntroEmailAsk = "code-intro-email-ask",
    CodeSendFirst = "code-send-first",
    CodeLockedHeld = "code-locked-held",
    CodeDailyLimit = "code-daily-limit",
    ErrorCodeFirstTitle = "error-code-first-title",
    ErrorCodeFirst = "error-code-first",
    // The builder page (extensions E11): placing fields on the pages of a template or draft.
    BuilderTitle = "builder-title",
    BuilderLead = "builder-lead",
    BuilderPalette = "builder-palette",
    BuilderPaletteHint = "builder-palette-hint",
    BuilderKeysHint = "builder-keys-hint",
    BuilderTypeSignature = "builder-type-signature",
    BuilderTypeInitials = "builder-type-initials",
    BuilderTypeDate = "builder-type-date",
    BuilderTypeText = "builder-type-text",
    BuilderTypeCheckbox = "builder-type-checkbox",
    BuilderTypeNumber = "builder-type-number",
    BuilderTypeAttachment = "builder-type-attachment",
    BuilderTypeRadio = "builder-type-radio",
    BuilderTypeSelect = "builder-type-select",
    BuilderPages = "builder-pages",
    BuilderDocument = "builder-document",
    BuilderPageUnavailable = "builder-page-unavailable",
    BuilderLocked = "builder-locked",
    BuilderSender = "builder-sender",
    BuilderField = "builder-field",
    BuilderFieldNone = "builder-field-none",
    BuilderLabelType = "builder-label-type",
    BuilderLabelRole = "builder-label-role",
    BuilderLabelSigner = "builder-label-signer",
    BuilderLabelKey = "builder-label-key",
    BuilderLabelLabel = "builder-label-label",
    BuilderLabelRequired = "builder-label-required",
    BuilderLabelOptions = "builder-label-options",
    BuilderLabelX = "builder-label-x",
    BuilderLabelY = "builder-label-y",
    BuilderLabelWidth = "builder-label-width",
    BuilderLabelHeight = "builder-label-height",
    BuilderDelete = "builder-delete",
    BuilderRoles = "builder-roles",
    BuilderRoleNumbered = "builder-role-numbered",
    BuilderAddRole = "builder-add-role",
    BuilderSigners = "builder-signers",
    BuilderSignerNumbered = "builder-signer-numbered",
    BuilderSignerName = "builder-signer-name",
    BuilderSignerEmail = "builder-signer-email",
    BuilderAddSigner = "builder-add-signer",
    BuilderSave = "builder-save",
    BuilderSaving = "builder-saving",
    BuilderSaved = "builder-saved",
    BuilderSend = "builder-send",
    BuilderSending = "builder-sending",
    BuilderSent = "builder-sent",
    BuilderUnsaved = "builder-unsaved",
    BuilderLoading = "builder-loading",
    BuilderNotSaved = "builder-not-saved",
    BuilderNotSent = "builder-not-sent",
    BuilderLoadFailed = "builder-load-failed",
    BuilderOffline = "builder-offline",
    BuilderConflict = "builder-conflict",
    BuilderReload = "builder-reload",
    BuilderLinkExpired = "builder-link-expired",
    BuilderAdded = "builder-added",
    BuilderDeleted = "builder-deleted",
    BuilderReturn = "builder-return",
    BuilderExpiredTitle = "builder-expired-title",
    BuilderExpired = "builder-expired",
    BuilderUnknown = "builder-unknown",
    // Approvers, viewers and in-person signing (extensions E13).
    EmailApproveSubject = "email-approve-subject",
    EmailApproveBody = "email-approve-body",
    EmailButtonApprove = "email-button-approve",
    EmailViewSubject = "email-view-subject",
    EmailViewBody = "email-view-body",
    EmailButtonView = "email-button-view",
    EmailHostSubject = "email-host-subject",
    EmailHostBody = "email-host-body",
    EmailButtonHost = "email-button-host",
    PageTitleApprove = "page-title-approve",
    PageLeadApprove = "page-lead-approve",
    PageYourApproval = "page-your-approval",
    PageConsentApprove = "page-consent-approve",
    PageConsentApproveHint = "page-consent-approve-hint",
    PageApprove = "page-approve",
    PageApproving = "page-approving",
    PageDeclineApproveSummary = "page-decline-approve-summary",
    PageTitleView = "page-title-view",
    PageLeadView = "page-lead-view",
    PageViewed = "page-viewed",
    HandoverTitle = "handover-title",
    HandoverLead = "handover-lead",
    HandoverContinue = "handover-continue",
    StateApprovedTitle = "state-approved-title",
    StateApproved = "state-approved",
}

/// An argument of a message.
#[derive(Debug, Clone, Copy)]
pub enum Arg<'a> {
    /// Text: escaped by [`html`], as it is in [`text`].
    Text(&'a str),
    /// Markup built by the caller from escaped parts; only meaningful to [`html`] ([`text`]
    /// takes it as it is).
    Html(&'a str),
    /// A number: plural forms select on it (`{ $days -> [one] … *[other] … }`).
    Number(i64),
}

impl<'a> From<&'a str> for Arg<'a> {
    fn from(s: &'a str) -> Arg<'a> {
        Arg::Text(s)
    }
}

impl<'a> From<&'a String> for Arg<'a> {
    fn from(s: &'a String) -> Arg<'a> {
        Arg::Text(s)
    }
}

impl From<i64> for Arg<'_> {
    fn from(n: i64) -> Self {
        Arg::Number(n)
    }
}

impl From<u32> for Arg<'_> {
    fn from(n: u32) -> Self {
        Arg::Number(i64::from(n))
    }
}

impl From<usize> for Arg<'_> {
    fn from(n: usize) -> Self {
        Arg::Number(i64::try_from(n).unwrap_or(i64::MAX))
    }
}

/// Escapes text for HTML element content and double-quoted attribute values.
pub fn escape_html(s: &str) -> Cow<'_, str> {
    if !s.contains(['&', '<', '>', '"', '\'']) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

struct Bundles {
    plain: FluentBundle<FluentResource>,
    html: FluentBundle<FluentResource>,
}

fn bundle(lang: Lang, escape: bool) -> FluentBundle<FluentResource> {
    let id: unic_langid::LanguageIdentifier = lang.code().parse().expect("a valid language code");
    let mut b = FluentBundle::new_concurrent(vec![id]);
    b.set_use_isolating(false);
    if escape {
        b.set_transform(Some(escape_html));
    }
    let res = FluentResource::try_new(source(lang).to_string())
        .unwrap_or_else(|(_, e)| panic!("locales/{}.ftl does not parse: {e:?}", lang.code()));
    b.add_resource(res)
        .unwrap_or_else(|e| panic!("locales/{}.ftl: {e:?}", lang.code()));
    b
}

static BUNDLES: LazyLock<Vec<Bundles>> = LazyLock::new(|| {
    Lang::ALL
        .into_iter()
        .map(|l| Bundles {
            plain: bundle(l, false),
            html: bundle(l, true),
        })
        .collect()
});

fn bundles(lang: Lang) -> &'static Bundles {
    &BUNDLES[Lang::ALL.iter().position(|l| *l == lang).unwrap_or(0)]
}

fn format(lang: Lang, msg: Msg, args: &[(&str, Arg<'_>)], as_html: bool) -> String {
    let set = bundles(lang);
    let b = if as_html { &set.html } else { &set.plain };
    let Some(pattern) = b.get_message(msg.key()).and_then(|m| m.value()) else {
        // The completeness tests make this unreachable; a release build falls back to English.
        debug_assert!(false, "{} has no message {}", lang.code(), msg.key());
        if lang != Lang::En {
            return format(Lang::En, msg, args, as_html);
        }
        return msg.key().to_string();
    };
    let mut fa = FluentArgs::with_capacity(args.len());
    for (name, arg) in args {
        let value: FluentValue<'_> = match arg {
            Arg::Text(s) if as_html => FluentValue::from(escape_html(s).into_owned()),
            Arg::Text(s) | Arg::Html(s) => FluentValue::from(*s),
            Arg::Number(n) => FluentValue::from(*n),
        };
        fa.set(*name, value);
    }
    let mut errors = Vec::new();
    let out = b.format_pattern(pattern, Some(&fa), &mut errors);
    debug_assert!(
        errors.is_empty(),
        "{} {}: {errors:?}",
        lang.code(),
        msg.key()
    );
    out.into_owned()
}

/// A message as plain text.
pub fn text(lang: Lang, msg: Msg, args: &[(&str, Arg<'_>)]) -> String {
    format(lang, msg, args, false)
}

/// A message as HTML (see the module doc for what is escaped).
pub fn html(lang: Lang, msg: Msg, args: &[(&str, Arg<'_>)]) -> String {
    format(lang, msg, args, true)
}
