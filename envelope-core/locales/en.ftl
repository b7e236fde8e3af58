# English: the reference catalogue. Every other file has exactly these keys, with the same
# variables. Brand and product names ({ $service }) are never translated.
# Keys and their use: envelope-core/src/i18n/catalog.rs (Msg). How to add one: docs/SIGNING.md.

## Shared pieces

# A document's name quoted in running plain text (HTML emphasises it instead).
quoted = "{ $text }"
required = (required)
optional = (optional)

## Emails to signers. $document is the envelope's name (already quoted or emphasised),
## $service the service's name, $until a date and time such as 2025-01-31 12:00 UTC.

email-hello = Hello { $name },
email-footer = Sent via { $service }.
email-button-sign = Review and sign
email-open-link = Open this link to review and sign:
email-fallback-link = If the button does not work, copy this link into your browser:
email-link-until = The link works until { $until }.
email-request-subject = Please sign: { $document }
email-request-body = You are asked to sign { $document }.
email-reminder-subject = Reminder: please sign { $document }
email-reminder-body = This is a reminder that { $document } is waiting for your signature.
email-voided-subject = Voided: { $document }
email-voided-body = { $document } was voided and can no longer be signed.
email-reason = Reason: { $reason }
email-nothing-to-do = You do not need to do anything.
email-completed-subject = Completed: { $document }
email-completed-body = Everyone has signed { $document }.
email-completed-attached = The signed copy is attached ({ $file }).
email-completed-not-attached = The signed copy could not be attached to this email (it may be too large); ask the sender for a copy.
email-copy-body = You receive a copy of { $document }: everyone has signed it.
email-copy-attached = Attached: { $files }.
# Followed by a colon and the link (text) or a full stop (HTML).
email-copy-too-large = { $file } is too large to attach; download it within { $days ->
        [one] { $days } day
       *[other] { $days } days
    }
email-copy-download = Download { $file }
email-code-subject = Your code to sign { $document }
email-code-body = Your code to open { $document } is:
email-code-use = Enter it on the signing page. It works for { $minutes ->
        [one] { $minutes } minute
       *[other] { $minutes } minutes
    }, once.
email-code-ignore = If you did not open a signing link, ignore this email: without the code nobody can see the document.

## The signing page

page-skip = Skip to content
page-title-sign = Sign { $document }
page-lead = Hello { $name }, please review the document and sign below.
page-sender-message = Message from the sender
page-document = Document
page-document-frame = Document to sign: { $document }
page-open-document = Open the document in a new tab
page-picture = Page { $page } of { $count }: { $document }
page-for-role = For { $role }
page-next-field = Next field
page-spot-sign = Sign here
page-done = Done
page-fields-done = Every required field is filled in. Review, consent and sign below.
page-your-fields = Your fields
page-label-signature = Signature
page-label-initials = Initials
page-label-date = Date
page-label-reason = Reason
# A field label numbered when a signer has several of its kind: "Signature 2".
page-label-numbered = { $label } { $number }
page-on-page = On page { $page } of the document.
page-mode-type = Type
page-mode-draw = Draw
page-type-signature = Type your full name as your signature
page-type-initials = Type your initials
page-draw-hint = Draw with a mouse, a finger or a pen. Prefer the keyboard? Choose Type.
page-drawing-area = { $field }: drawing area
page-clear-drawing = Clear drawing
page-date-hint = Filled in automatically with the date you sign.
page-choose-option = Choose an option
page-number-hint = A number, such as 12 or -3.50.
page-computed-hint = Worked out from the other fields; it changes as you fill them in.
page-attachment-hint = A PDF, PNG or JPEG file of at most 10 MB.
page-attachment-camera = Or take a photo
page-signature-page-hint = Placed on a signature page added at the end of the document.
page-consent = I agree to sign electronically
page-consent-hint = My electronic signature on this document is as binding as a handwritten one.
page-sign = Sign
# Shown on the Sign button while the form is posted.
page-signing = Signing…
page-draw-required = Please draw your signature, or choose Type.
page-decline-summary = Decline to sign
page-decline-reason = Reason, shown to the sender
page-decline-hint = Declining cancels the envelope for everyone. This cannot be undone.
page-decline = Decline

## The states of a signing link

state-thanks = Thank you for signing
state-signed-title = You have signed
state-signed = You have signed { $document }.
state-others-email = The other signers still have to sign. When everyone has, you will get the signed document by email.
state-others-sender = The other signers still have to sign. The sender will let you know when everyone has.
state-completed-title = Everyone has signed
state-completed = Everyone has signed { $document }.
state-completed-email = A copy of the signed document is on its way to you by email.
state-completed-sender = The sender has the signed document.
state-wait-title = Not your turn yet
state-wait = Someone else has to sign { $document } before you.
state-wait-email = We will email you when it is your turn.
state-wait-sender = Come back to this link when the sender tells you it is your turn.
state-declined-title = You declined to sign
state-declined = You declined to sign { $document }.
state-declined-note = The sender has been told, and the envelope is cancelled for everyone.
state-voided-title = This envelope was cancelled
state-voided = The sender cancelled { $document }. There is nothing to sign.
state-voided-reason = Reason given:
state-expired-title = This link has expired
state-expired = The time to sign { $document } is over.
state-expired-note = Ask the sender for a new link if you still need to sign.

## Failures on the signing page, and values the service refused ($field is a field's label)

error-unknown-title = Link not valid
error-unknown-heading = This link is not valid
error-unknown = Check that you opened the whole link from your email, or ask the sender for a new one.
error-rate-title = Too many requests
error-rate = Please wait a minute, then reload the page.
error-method-title = Not available
error-method = This address cannot be used like this.
error-form-title = Not accepted
error-form = The form could not be read. Go back, reload the page and try again.
error-deleted-title = Document deleted
error-deleted = This document was deleted under the sender's data retention policy. Ask the sender for a copy.
error-busy-title = Busy
error-busy = Many documents are being processed right now and nothing was changed. Please try again in a moment.
error-slow-title = Too slow
error-slow = The form took too long to arrive. Check your connection and try again.
error-generic-title = Something went wrong
error-generic = Please try again in a moment. If it keeps happening, contact the sender.
error-refused-title = Form not accepted
error-refused = The form did not come from this signing page, or the page is out of date. Open the link from your email again and retry.
error-consent = Please tick “{ page-consent }” to sign.
error-missing = Please fill in “{ $field }”.
# A value refused for a reason the catalogue has no words of its own for.
error-invalid = “{ $field }” was not accepted. Please check it and try again.
# The same with the service's own explanation ($detail, in English): used for English pages.
error-invalid-detail = “{ $field }” was not accepted: { $detail }.
error-value-empty = “{ $field }” must not be empty.
error-value-not-option = “{ $field }” must be one of the choices shown.
error-value-not-number = “{ $field }” must be a number, such as 12 or -3.50.
error-formula-no-value = “{ $field }” is worked out from the fields you filled in, and with these values it has no result (a division by zero, or a number too large). Please change them.
error-file-type = “{ $field }” must be a PDF, PNG or JPEG file.
error-file-too-big = The file for “{ $field }” is too large: at most 10 MB.
error-file-unreadable = The file for “{ $field }” could not be read. Please choose another PDF, PNG or JPEG file.
error-value-too-long = “{ $field }” can be at most { $max ->
        [one] { $max } character
       *[other] { $max } characters
    } long.
error-value-character = “{ $field }” contains a character that cannot be placed in the document ({ $code }). Please remove it.
error-drawing-too-big = The drawing for “{ $field }” is too large. Please clear it and draw again.
error-drawing-unreadable = The drawing for “{ $field }” could not be read. Please clear it and draw again.
error-drawing-blank = The drawing for “{ $field }” is empty. Please draw your signature.
error-unknown-value = The form sent a field that is not yours to fill in. Reload the page and try again.

## The code step (extensions E2): before a signer with a code sees the document.
## $email is the signer's masked address (markup), $until a time such as 14:05 UTC.

code-title-access = Enter your access code
code-title-email = Enter the code we emailed you
code-lead = Hello { $name }, the sender asked us to confirm it is you before you see the document.
code-intro-access = The sender gave you this code separately, for example by phone or text message.
code-intro-email = We sent a 6-digit code to { $email }. It works for 10 minutes. Check your spam folder if it has not arrived.
code-your-email = your email address
code-label-access = Access code
code-label-email = Code from the email
code-attempts-left = { $count ->
        [one] { $count } attempt
       *[other] { $count } attempts
    } left before the link is locked.
code-continue = Continue
code-no-email = No email after a minute?
code-send-new = Send a new code
code-sent = A new code is on its way. Only the newest code works.
code-wrong = That code is not right. { $count ->
        [one] { $count } attempt
       *[other] { $count } attempts
    } left before the link is locked.
code-locked = Too many wrong codes. The link is locked until { $until }.
code-expired = This code is no longer valid. Ask for a new code and enter it within 10 minutes.
code-too-soon = A code was sent less than a minute ago. You can ask for a new one in { $seconds ->
        [one] { $seconds } second
       *[other] { $seconds } seconds
    }.
code-intro-email-ask = Press the button below and we will email a 6-digit code to your email address. It works for 10 minutes.
code-send-first = Send me a code
code-locked-held = Too many wrong codes. The link is locked: ask the sender to unlock it.
code-daily-limit = Too many codes were sent today. You can ask for a new one at { $until }.
error-code-first-title = Enter your code first
error-code-first = Open the signing link and enter your code to see the document.

## The builder page (extensions E11): a sender places fields on the pages of a template or a
## draft envelope. $name is the template's or envelope's name, $field a field's visible name.

builder-title = Place fields: { $name }
builder-lead = Drag field types onto the pages, then save.
builder-palette = Add a field
builder-palette-hint = Drag a type onto a page, or choose it to add it to the page in view.
builder-keys-hint = Tab reaches every field. Arrow keys move the selected field by 1 pt, with Shift by 10 pt. Delete removes it.
builder-type-signature = Signature
builder-type-initials = Initials
builder-type-date = Date
builder-type-text = Text
builder-type-checkbox = Check box
builder-type-number = Number
builder-type-radio = Radio buttons
builder-type-select = Drop-down list
builder-type-attachment = File
builder-pages = Pages
builder-document = Document { $number }: { $name }
builder-page-unavailable = The picture of this page could not be shown.
builder-locked = from the document, cannot be moved
builder-sender = Sender (filled in on create)
builder-field = Selected field
builder-field-none = Select a field on a page to change it.
builder-label-type = Type
builder-label-role = Role
builder-label-signer = Signer
builder-label-key = Key
builder-label-label = Label shown to the signer
builder-label-required = Required
builder-label-options = Options, one per line
builder-label-x = Left (pt)
builder-label-y = Top (pt)
builder-label-width = Width (pt)
builder-label-height = Height (pt)
builder-delete = Delete field
builder-roles = Roles
builder-role-numbered = Role { $number }
builder-add-role = Add role
builder-signers = Signers
builder-signer-numbered = Signer { $number }
builder-signer-name = Name
builder-signer-email = Email
builder-add-signer = Add signer
builder-save = Save
builder-saving = Saving…
builder-saved = Saved.
builder-send = Send
builder-sending = Sending…
builder-sent = Sent: the signers have been asked to sign.
builder-unsaved = Changes not saved yet.
builder-loading = Loading…
builder-not-saved = Not saved:
builder-not-sent = Not sent:
builder-load-failed = Could not load:
builder-offline = The server could not be reached. Nothing was lost: try again.
builder-conflict = This was changed elsewhere since the page loaded, so nothing was saved. Your layout is still on screen. Reload to get the current version (your changes here will be lost).
builder-reload = Reload
builder-link-expired = This builder link has expired. Open the builder again from your app.
builder-added = { $field } added.
builder-deleted = Field deleted.
builder-return = Back to the app
builder-expired-title = Link expired
builder-expired = This builder link has expired. Open the builder again from the app you came from.
builder-unknown = Open the builder again from the app you came from.

# Approvers, viewers and in-person signing (extensions E13).
email-approve-subject = Please approve: { $document }
email-approve-body = You are asked to review and approve { $document }.
email-button-approve = Review and approve
email-view-subject = Shared with you: { $document }
email-view-body = { $document } was shared with you. Opening it is all that is asked of you.
email-button-view = View the document
email-host-subject = In-person signing: { $document }
email-host-body = You are hosting the in-person signing of { $document } by { $name }. Open the link on the device you will hand to them.
email-button-host = Start the in-person signing
page-title-approve = Approve { $document }
page-lead-approve = Hello { $name }, please review the document, then approve or decline it below.
page-your-approval = Your approval
page-consent-approve = I agree to approve electronically
page-consent-approve-hint = My approval is recorded with its time and this device, as binding as a handwritten one.
page-approve = Approve
page-approving = Approving…
page-decline-approve-summary = Decline to approve
page-title-view = View { $document }
page-lead-view = Hello { $name }, this document was shared with you. Viewing it is all that is asked: there is nothing to sign.
page-viewed = You have viewed this document. Nothing else is needed from you.
handover-title = Please hand this device to { $name }
handover-lead = { $host } is hosting the in-person signing of { $document }. Please hand this device to { $name }, who will review and sign it.
handover-continue = I am { $name }: continue
state-approved-title = You approved
state-approved = You approved { $document }.
