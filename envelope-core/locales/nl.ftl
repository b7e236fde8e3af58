# Nederlands. Dezelfde sleutels en variabelen als en.ftl; merk- en productnamen ({ $service }) worden niet vertaald.

## Gedeelde onderdelen

quoted = ‘{ $text }’
required = (verplicht)
optional = (optioneel)

## E-mails aan ondertekenaars

email-hello = Beste { $name },
email-footer = Verzonden via { $service }.
email-button-sign = Bekijken en ondertekenen
email-open-link = Open deze link om het document te bekijken en te ondertekenen:
email-fallback-link = Werkt de knop niet? Kopieer deze link dan naar uw browser:
email-link-until = De link is geldig tot { $until }.
email-request-subject = Ter ondertekening: { $document }
email-request-body = U wordt gevraagd { $document } te ondertekenen.
email-reminder-subject = Herinnering: onderteken { $document }
email-reminder-body = Dit is een herinnering dat { $document } op uw handtekening wacht.
email-voided-subject = Ingetrokken: { $document }
email-voided-body = { $document } is ingetrokken en kan niet meer worden ondertekend.
email-reason = Reden: { $reason }
email-nothing-to-do = U hoeft niets te doen.
email-completed-subject = Voltooid: { $document }
email-completed-body = Iedereen heeft { $document } ondertekend.
email-completed-attached = Het ondertekende exemplaar is bijgevoegd ({ $file }).
email-completed-not-attached = Het ondertekende exemplaar kon niet aan deze e-mail worden toegevoegd (het is mogelijk te groot); vraag de afzender om een kopie.
email-copy-body = U ontvangt een kopie van { $document }: iedereen heeft het ondertekend.
email-copy-attached = Bijlagen: { $files }.
email-copy-too-large = { $file } is te groot om bij te voegen; download het binnen { $days ->
        [one] { $days } dag
       *[other] { $days } dagen
    }
email-copy-download = { $file } downloaden
email-code-subject = Uw code om { $document } te ondertekenen
email-code-body = Uw code om { $document } te openen is:
email-code-use = Vul deze in op de ondertekeningspagina. De code is { $minutes ->
        [one] { $minutes } minuut
       *[other] { $minutes } minuten
    } geldig en werkt één keer.
email-code-ignore = Hebt u geen ondertekeningslink geopend? Negeer deze e-mail dan: zonder de code kan niemand het document zien.

## De ondertekenpagina

page-skip = Naar de inhoud
page-title-sign = { $document } ondertekenen
page-lead = Beste { $name }, bekijk het document en onderteken hieronder.
page-sender-message = Bericht van de afzender
page-document = Document
page-document-frame = Te ondertekenen document: { $document }
page-open-document = Document openen in een nieuw tabblad
page-picture = Pagina { $page } van { $count }: { $document }
page-for-role = Voor { $role }
page-next-field = Volgend veld
page-spot-sign = Hier ondertekenen
page-done = Klaar
page-fields-done = Alle verplichte velden zijn ingevuld. Controleer, ga akkoord en onderteken hieronder.
page-your-fields = Uw velden
page-label-signature = Handtekening
page-label-initials = Paraaf
page-label-date = Datum
page-label-reason = Reden
page-label-numbered = { $label } { $number }
page-on-page = Op pagina { $page } van het document.
page-mode-type = Typen
page-mode-draw = Tekenen
page-type-signature = Typ uw volledige naam als handtekening
page-type-initials = Typ uw initialen
page-draw-hint = Teken met een muis, een vinger of een pen. Liever het toetsenbord? Kies ‘Typen’.
page-drawing-area = { $field }: tekenvlak
page-clear-drawing = Tekening wissen
page-date-hint = Wordt automatisch ingevuld met de datum waarop u ondertekent.
page-choose-option = Kies een optie
page-number-hint = Een getal, bijvoorbeeld 12 of -3.50.
page-computed-hint = Berekend uit de andere velden; het verandert terwijl u ze invult.
page-attachment-hint = Een PDF-, PNG- of JPEG-bestand van hoogstens 10 MB.
page-attachment-camera = Of maak een foto
page-signature-page-hint = Komt op een handtekeningpagina die aan het einde van het document wordt toegevoegd.
page-consent = Ik ga akkoord met elektronisch ondertekenen
page-consent-hint = Mijn elektronische handtekening op dit document is even bindend als een handgeschreven handtekening.
page-sign = Ondertekenen
page-signing = Bezig met ondertekenen…
page-draw-required = Teken uw handtekening of kies ‘Typen’.
page-decline-summary = Ondertekenen weigeren
page-decline-reason = Reden, zichtbaar voor de afzender
page-decline-hint = Als u weigert, wordt de envelop voor iedereen geannuleerd. Dit kan niet ongedaan worden gemaakt.
page-decline = Weigeren

## De status van een ondertekenlink

state-thanks = Bedankt voor het ondertekenen
state-signed-title = U hebt ondertekend
state-signed = U hebt { $document } ondertekend.
state-others-email = De andere ondertekenaars moeten nog ondertekenen. Zodra iedereen heeft ondertekend, ontvangt u het ondertekende document per e-mail.
state-others-sender = De andere ondertekenaars moeten nog ondertekenen. De afzender laat het u weten zodra iedereen heeft ondertekend.
state-completed-title = Iedereen heeft ondertekend
state-completed = Iedereen heeft { $document } ondertekend.
state-completed-email = Een kopie van het ondertekende document is per e-mail naar u onderweg.
state-completed-sender = De afzender heeft het ondertekende document.
state-wait-title = U bent nog niet aan de beurt
state-wait = Iemand anders moet { $document } eerst ondertekenen.
state-wait-email = We sturen u een e-mail zodra u aan de beurt bent.
state-wait-sender = Open deze link opnieuw wanneer de afzender laat weten dat u aan de beurt bent.
state-declined-title = U hebt geweigerd te ondertekenen
state-declined = U hebt geweigerd { $document } te ondertekenen.
state-declined-note = De afzender is op de hoogte gebracht en de envelop is voor iedereen geannuleerd.
state-voided-title = Deze envelop is geannuleerd
state-voided = De afzender heeft { $document } geannuleerd. Er valt niets te ondertekenen.
state-voided-reason = Opgegeven reden:
state-expired-title = Deze link is verlopen
state-expired = De termijn om { $document } te ondertekenen is verstreken.
state-expired-note = Vraag de afzender om een nieuwe link als u nog moet ondertekenen.

## Fouten op de ondertekenpagina en geweigerde waarden

error-unknown-title = Ongeldige link
error-unknown-heading = Deze link is ongeldig
error-unknown = Controleer of u de volledige link uit uw e-mail hebt geopend, of vraag de afzender om een nieuwe.
error-rate-title = Te veel verzoeken
error-rate = Wacht een minuut en laad de pagina daarna opnieuw.
error-method-title = Niet beschikbaar
error-method = Dit adres kan niet op deze manier worden gebruikt.
error-form-title = Niet geaccepteerd
error-form = Het formulier kon niet worden gelezen. Ga terug, laad de pagina opnieuw en probeer het nog eens.
error-deleted-title = Document verwijderd
error-deleted = Dit document is verwijderd volgens het bewaarbeleid van de afzender. Vraag de afzender om een kopie.
error-busy-title = Bezet
error-busy = Er worden op dit moment veel documenten verwerkt en er is niets gewijzigd. Probeer het zo nog eens.
error-slow-title = Te traag
error-slow = Het formulier deed er te lang over om aan te komen. Controleer uw verbinding en probeer het opnieuw.
error-generic-title = Er is iets misgegaan
error-generic = Probeer het zo nog eens. Blijft het probleem bestaan, neem dan contact op met de afzender.
error-refused-title = Formulier niet geaccepteerd
error-refused = Het formulier kwam niet van deze ondertekenpagina, of de pagina is verouderd. Open de link uit uw e-mail opnieuw en probeer het nog eens.
error-consent = Vink ‘{ page-consent }’ aan om te ondertekenen.
error-missing = Vul ‘{ $field }’ in.
error-invalid = ‘{ $field }’ is niet geaccepteerd. Controleer de waarde en probeer het opnieuw.
error-invalid-detail = ‘{ $field }’ is niet geaccepteerd: { $detail }.
error-value-empty = ‘{ $field }’ mag niet leeg zijn.
error-value-not-option = ‘{ $field }’ moet een van de getoonde keuzes zijn.
error-value-not-number = ‘{ $field }’ moet een getal zijn, bijvoorbeeld 12 of -3.50.
error-formula-no-value = ‘{ $field }’ wordt berekend uit de ingevulde velden en heeft met deze waarden geen uitkomst (een deling door nul of een te groot getal). Pas ze aan.
error-file-type = ‘{ $field }’ moet een PDF-, PNG- of JPEG-bestand zijn.
error-file-too-big = Het bestand voor ‘{ $field }’ is te groot: hoogstens 10 MB.
error-file-unreadable = Het bestand voor ‘{ $field }’ kon niet worden gelezen. Kies een ander PDF-, PNG- of JPEG-bestand.
error-value-too-long = ‘{ $field }’ mag maximaal { $max ->
        [one] { $max } teken
       *[other] { $max } tekens
    } lang zijn.
error-value-character = ‘{ $field }’ bevat een teken dat niet in het document kan worden opgenomen ({ $code }). Verwijder het.
error-drawing-too-big = De tekening voor ‘{ $field }’ is te groot. Wis de tekening en teken opnieuw.
error-drawing-unreadable = De tekening voor ‘{ $field }’ kon niet worden gelezen. Wis de tekening en teken opnieuw.
error-drawing-blank = De tekening voor ‘{ $field }’ is leeg. Teken uw handtekening.
error-unknown-value = Het formulier bevatte een veld dat niet voor u bestemd is. Laad de pagina opnieuw en probeer het nog eens.

## De codestap (uitbreiding E2)

code-title-access = Vul uw toegangscode in
code-title-email = Vul de code uit onze e-mail in
code-lead = Hallo { $name }, de afzender wil bevestigen dat u het bent voordat u het document ziet.
code-intro-access = De afzender heeft u deze code apart gegeven, bijvoorbeeld telefonisch of per sms.
code-intro-email = We hebben een 6-cijferige code gestuurd naar { $email }. De code is 10 minuten geldig. Kijk in uw spammap als de e-mail niet is aangekomen.
code-your-email = uw e-mailadres
code-label-access = Toegangscode
code-label-email = Code uit de e-mail
code-attempts-left = Nog { $count ->
        [one] { $count } poging
       *[other] { $count } pogingen
    } voordat de link wordt geblokkeerd.
code-continue = Doorgaan
code-no-email = Na een minuut nog geen e-mail?
code-send-new = Nieuwe code sturen
code-sent = Er is een nieuwe code onderweg. Alleen de nieuwste code werkt.
code-wrong = Die code klopt niet. Nog { $count ->
        [one] { $count } poging
       *[other] { $count } pogingen
    } voordat de link wordt geblokkeerd.
code-locked = Te veel onjuiste codes. De link is geblokkeerd tot { $until }.
code-expired = Deze code is niet meer geldig. Vraag een nieuwe code aan en vul die binnen 10 minuten in.
code-too-soon = Er is minder dan een minuut geleden een code verstuurd. U kunt over { $seconds ->
        [one] { $seconds } seconde
       *[other] { $seconds } seconden
    } een nieuwe aanvragen.
code-intro-email-ask = Klik op de knop hieronder en we e-mailen een code van 6 cijfers naar uw e-mailadres. Deze is 10 minuten geldig.
code-send-first = Stuur mij een code
code-locked-held = Te veel onjuiste codes. De link is geblokkeerd: vraag de afzender om hem te deblokkeren.
code-daily-limit = Vandaag zijn er te veel codes verstuurd. U kunt om { $until } een nieuwe aanvragen.
error-code-first-title = Vul eerst uw code in
error-code-first = Open de ondertekeningslink en vul uw code in om het document te zien.

## De pagina om velden te plaatsen (uitbreiding E11)

builder-title = Velden plaatsen: { $name }
builder-lead = Sleep veldtypen naar de pagina's en sla daarna op.
builder-palette = Veld toevoegen
builder-palette-hint = Sleep een type naar een pagina, of kies het om het aan de zichtbare pagina toe te voegen.
builder-keys-hint = Met Tab bereikt u elk veld. De pijltoetsen verplaatsen het geselecteerde veld 1 pt, met Shift 10 pt. Delete verwijdert het.
builder-type-signature = Handtekening
builder-type-initials = Paraaf
builder-type-date = Datum
builder-type-text = Tekst
builder-type-checkbox = Selectievakje
builder-type-number = Getal
builder-type-radio = Keuzerondjes
builder-type-select = Keuzelijst
builder-type-attachment = Bestand
builder-pages = Pagina's
builder-document = Document { $number }: { $name }
builder-page-unavailable = De afbeelding van deze pagina kon niet worden getoond.
builder-locked = uit het document, niet verplaatsbaar
builder-sender = Afzender (ingevuld bij aanmaken)
builder-field = Geselecteerd veld
builder-field-none = Selecteer een veld op een pagina om het te wijzigen.
builder-label-type = Type
builder-label-role = Rol
builder-label-signer = Ondertekenaar
builder-label-key = Sleutel
builder-label-label = Label voor de ondertekenaar
builder-label-required = Verplicht
builder-label-options = Opties, één per regel
builder-label-x = Links (pt)
builder-label-y = Boven (pt)
builder-label-width = Breedte (pt)
builder-label-height = Hoogte (pt)
builder-delete = Veld verwijderen
builder-roles = Rollen
builder-role-numbered = Rol { $number }
builder-add-role = Rol toevoegen
builder-signers = Ondertekenaars
builder-signer-numbered = Ondertekenaar { $number }
builder-signer-name = Naam
builder-signer-email = E-mail
builder-add-signer = Ondertekenaar toevoegen
builder-save = Opslaan
builder-saving = Bezig met opslaan…
builder-saved = Opgeslagen.
builder-send = Versturen
builder-sending = Bezig met versturen…
builder-sent = Verstuurd: de ondertekenaars is gevraagd te ondertekenen.
builder-unsaved = Wijzigingen nog niet opgeslagen.
builder-loading = Bezig met laden…
builder-not-saved = Niet opgeslagen:
builder-not-sent = Niet verstuurd:
builder-load-failed = Laden mislukt:
builder-offline = De server was niet bereikbaar. Er is niets verloren: probeer het opnieuw.
builder-conflict = Dit is elders gewijzigd sinds de pagina werd geladen, dus er is niets opgeslagen. Uw indeling staat nog op het scherm. Laad opnieuw voor de huidige versie (uw wijzigingen hier gaan dan verloren).
builder-reload = Opnieuw laden
builder-link-expired = Deze link is verlopen. Open de editor opnieuw vanuit uw app.
builder-added = { $field } toegevoegd.
builder-deleted = Veld verwijderd.
builder-return = Terug naar de app
builder-expired-title = Link verlopen
builder-expired = Deze link is verlopen. Open de editor opnieuw vanuit de app waar u vandaan kwam.
builder-unknown = Open de editor opnieuw vanuit de app waar u vandaan kwam.

# Approvers, viewers and in-person signing (extensions E13).
email-approve-subject = Graag goedkeuren: { $document }
email-approve-body = U wordt gevraagd { $document } te bekijken en goed te keuren.
email-button-approve = Bekijken en goedkeuren
email-view-subject = Met u gedeeld: { $document }
email-view-body = { $document } is met u gedeeld. Openen is alles wat u hoeft te doen.
email-button-view = Document bekijken
email-host-subject = Ondertekening ter plaatse: { $document }
email-host-body = U begeleidt de ondertekening ter plaatse van { $document } door { $name }. Open de link op het apparaat dat u overhandigt.
email-button-host = Ondertekening ter plaatse starten
page-title-approve = { $document } goedkeuren
page-lead-approve = Hallo { $name }, bekijk het document en keur het hieronder goed of wijs het af.
page-your-approval = Uw goedkeuring
page-consent-approve = Ik ga akkoord met elektronisch goedkeuren
page-consent-approve-hint = Mijn goedkeuring wordt vastgelegd met tijdstip en dit apparaat en is even bindend als een handgeschreven goedkeuring.
page-approve = Goedkeuren
page-approving = Bezig met goedkeuren…
page-decline-approve-summary = Goedkeuring weigeren
page-title-view = { $document } bekijken
page-lead-view = Hallo { $name }, dit document is met u gedeeld. Bekijken is alles wat gevraagd wordt: u hoeft niets te ondertekenen.
page-viewed = U hebt dit document bekeken. Er is verder niets nodig.
handover-title = Geef dit apparaat aan { $name }
handover-lead = { $host } begeleidt de ondertekening ter plaatse van { $document }. Geef dit apparaat aan { $name }, die het zal bekijken en ondertekenen.
handover-continue = Ik ben { $name }: doorgaan
state-approved-title = U hebt goedgekeurd
state-approved = U hebt { $document } goedgekeurd.
