# Deutsch. Schlüssel und Variablen wie en.ftl; Marken- und Produktnamen ({ $service }) bleiben unübersetzt.

## Gemeinsame Bausteine

quoted = „{ $text }“
required = (erforderlich)
optional = (optional)

## E-Mails an Unterzeichnende

email-hello = Guten Tag { $name },
email-footer = Gesendet über { $service }.
email-button-sign = Prüfen und unterschreiben
email-open-link = Über diesen Link können Sie das Dokument prüfen und unterschreiben:
email-fallback-link = Falls die Schaltfläche nicht funktioniert, kopieren Sie diesen Link in Ihren Browser:
email-link-until = Der Link ist gültig bis { $until }.
email-request-subject = Bitte unterschreiben: { $document }
email-request-body = Sie werden gebeten, { $document } zu unterschreiben.
email-reminder-subject = Erinnerung: Bitte unterschreiben Sie { $document }
email-reminder-body = Wir möchten Sie daran erinnern, dass { $document } auf Ihre Unterschrift wartet.
email-voided-subject = Storniert: { $document }
email-voided-body = { $document } wurde storniert und kann nicht mehr unterschrieben werden.
email-reason = Grund: { $reason }
email-nothing-to-do = Sie müssen nichts weiter tun.
email-completed-subject = Abgeschlossen: { $document }
email-completed-body = Alle Beteiligten haben { $document } unterschrieben.
email-completed-attached = Das unterschriebene Dokument ist angehängt ({ $file }).
email-completed-not-attached = Das unterschriebene Dokument konnte dieser E-Mail nicht angehängt werden (möglicherweise ist es zu groß). Bitten Sie den Absender um eine Kopie.
email-copy-body = Sie erhalten eine Kopie von { $document }: Alle Beteiligten haben unterschrieben.
email-copy-attached = Anhänge: { $files }.
email-copy-too-large = { $file } ist zu groß für einen Anhang; laden Sie die Datei innerhalb von { $days ->
        [one] { $days } Tag
       *[other] { $days } Tagen
    } herunter
email-copy-download = { $file } herunterladen
email-code-subject = Ihr Code zum Unterschreiben von { $document }
email-code-body = Ihr Code zum Öffnen von { $document } lautet:
email-code-use = Geben Sie ihn auf der Unterschriftsseite ein. Er ist { $minutes ->
        [one] { $minutes } Minute
       *[other] { $minutes } Minuten
    } lang einmal gültig.
email-code-ignore = Wenn Sie keinen Unterschriftslink geöffnet haben, ignorieren Sie diese E-Mail: Ohne den Code kann niemand das Dokument sehen.

## Die Unterschriftsseite

page-skip = Zum Inhalt springen
page-title-sign = { $document } unterschreiben
page-lead = Guten Tag { $name }, bitte prüfen Sie das Dokument und unterschreiben Sie unten.
page-sender-message = Nachricht des Absenders
page-document = Dokument
page-document-frame = Zu unterschreibendes Dokument: { $document }
page-open-document = Dokument in neuem Tab öffnen
page-picture = Seite { $page } von { $count }: { $document }
page-for-role = Für { $role }
page-next-field = Nächstes Feld
page-spot-sign = Hier unterschreiben
page-done = Fertig
page-fields-done = Alle Pflichtfelder sind ausgefüllt. Prüfen Sie, stimmen Sie zu und unterschreiben Sie unten.
page-your-fields = Ihre Felder
page-label-signature = Unterschrift
page-label-initials = Initialen
page-label-date = Datum
page-label-reason = Grund
page-label-numbered = { $label } { $number }
page-on-page = Auf Seite { $page } des Dokuments.
page-mode-type = Eingeben
page-mode-draw = Zeichnen
page-type-signature = Geben Sie Ihren vollständigen Namen als Unterschrift ein
page-type-initials = Geben Sie Ihre Initialen ein
page-draw-hint = Zeichnen Sie mit der Maus, dem Finger oder einem Stift. Lieber mit der Tastatur? Wählen Sie „Eingeben“.
page-drawing-area = { $field }: Zeichenfläche
page-clear-drawing = Zeichnung löschen
page-date-hint = Wird automatisch mit dem Datum Ihrer Unterschrift ausgefüllt.
page-choose-option = Bitte wählen
page-number-hint = Eine Zahl, zum Beispiel 12 oder -3.50.
page-computed-hint = Wird aus den anderen Feldern berechnet und ändert sich, während Sie sie ausfüllen.
page-attachment-hint = Eine PDF-, PNG- oder JPEG-Datei von höchstens 10 MB.
page-attachment-camera = Oder ein Foto aufnehmen
page-signature-page-hint = Erscheint auf einer Unterschriftenseite, die am Ende des Dokuments angefügt wird.
page-consent = Ich bin damit einverstanden, elektronisch zu unterschreiben
page-consent-hint = Meine elektronische Unterschrift auf diesem Dokument ist ebenso verbindlich wie eine handschriftliche.
page-sign = Unterschreiben
page-signing = Wird unterschrieben…
page-draw-required = Bitte zeichnen Sie Ihre Unterschrift oder wählen Sie „Eingeben“.
page-decline-summary = Unterschrift ablehnen
page-decline-reason = Grund, wird dem Absender angezeigt
page-decline-hint = Mit der Ablehnung wird der Umschlag für alle Beteiligten storniert. Dies kann nicht rückgängig gemacht werden.
page-decline = Ablehnen

## Der Stand eines Unterschriftslinks

state-thanks = Vielen Dank für Ihre Unterschrift
state-signed-title = Sie haben unterschrieben
state-signed = Sie haben { $document } unterschrieben.
state-others-email = Die anderen Beteiligten müssen noch unterschreiben. Sobald alle unterschrieben haben, erhalten Sie das unterschriebene Dokument per E-Mail.
state-others-sender = Die anderen Beteiligten müssen noch unterschreiben. Der Absender informiert Sie, sobald alle unterschrieben haben.
state-completed-title = Alle haben unterschrieben
state-completed = Alle Beteiligten haben { $document } unterschrieben.
state-completed-email = Eine Kopie des unterschriebenen Dokuments ist per E-Mail zu Ihnen unterwegs.
state-completed-sender = Das unterschriebene Dokument liegt dem Absender vor.
state-wait-title = Sie sind noch nicht an der Reihe
state-wait = Eine andere Person muss { $document } vor Ihnen unterschreiben.
state-wait-email = Wir benachrichtigen Sie per E-Mail, sobald Sie an der Reihe sind.
state-wait-sender = Öffnen Sie diesen Link erneut, sobald der Absender Ihnen mitteilt, dass Sie an der Reihe sind.
state-declined-title = Sie haben die Unterschrift abgelehnt
state-declined = Sie haben abgelehnt, { $document } zu unterschreiben.
state-declined-note = Der Absender wurde informiert, und der Umschlag ist für alle Beteiligten storniert.
state-voided-title = Dieser Umschlag wurde storniert
state-voided = Der Absender hat { $document } storniert. Es gibt nichts zu unterschreiben.
state-voided-reason = Angegebener Grund:
state-expired-title = Dieser Link ist abgelaufen
state-expired = Die Frist zum Unterschreiben von { $document } ist abgelaufen.
state-expired-note = Bitten Sie den Absender um einen neuen Link, falls Sie noch unterschreiben müssen.

## Fehler auf der Unterschriftsseite und abgelehnte Eingaben

error-unknown-title = Ungültiger Link
error-unknown-heading = Dieser Link ist ungültig
error-unknown = Prüfen Sie, ob Sie den vollständigen Link aus Ihrer E-Mail geöffnet haben, oder bitten Sie den Absender um einen neuen Link.
error-rate-title = Zu viele Anfragen
error-rate = Bitte warten Sie eine Minute und laden Sie die Seite dann neu.
error-method-title = Nicht verfügbar
error-method = Diese Adresse kann so nicht verwendet werden.
error-form-title = Nicht angenommen
error-form = Das Formular konnte nicht gelesen werden. Gehen Sie zurück, laden Sie die Seite neu und versuchen Sie es erneut.
error-deleted-title = Dokument gelöscht
error-deleted = Dieses Dokument wurde gemäß der Aufbewahrungsrichtlinie des Absenders gelöscht. Bitten Sie den Absender um eine Kopie.
error-busy-title = Ausgelastet
error-busy = Zurzeit werden sehr viele Dokumente verarbeitet; es wurde nichts geändert. Bitte versuchen Sie es in Kürze erneut.
error-slow-title = Zeitüberschreitung
error-slow = Das Formular ist nicht rechtzeitig eingegangen. Prüfen Sie Ihre Verbindung und versuchen Sie es erneut.
error-generic-title = Ein Fehler ist aufgetreten
error-generic = Bitte versuchen Sie es in Kürze erneut. Wenn das Problem weiterhin besteht, wenden Sie sich an den Absender.
error-refused-title = Formular nicht angenommen
error-refused = Das Formular stammt nicht von dieser Unterschriftsseite, oder die Seite ist veraltet. Öffnen Sie den Link aus Ihrer E-Mail erneut und versuchen Sie es noch einmal.
error-consent = Bitte bestätigen Sie „{ page-consent }“, um zu unterschreiben.
error-missing = Bitte füllen Sie „{ $field }“ aus.
error-invalid = „{ $field }“ wurde nicht angenommen. Bitte prüfen Sie die Eingabe und versuchen Sie es erneut.
error-invalid-detail = „{ $field }“ wurde nicht angenommen: { $detail }.
error-value-empty = „{ $field }“ darf nicht leer sein.
error-value-not-option = „{ $field }“ muss eine der angezeigten Auswahlmöglichkeiten sein.
error-value-not-number = „{ $field }“ muss eine Zahl sein, zum Beispiel 12 oder -3.50.
error-formula-no-value = „{ $field }“ wird aus Ihren Eingaben berechnet und hat mit diesen Werten kein Ergebnis (eine Division durch null oder eine zu große Zahl). Bitte ändern Sie die Werte.
error-file-type = „{ $field }“ muss eine PDF-, PNG- oder JPEG-Datei sein.
error-file-too-big = Die Datei für „{ $field }“ ist zu groß: höchstens 10 MB.
error-file-unreadable = Die Datei für „{ $field }“ konnte nicht gelesen werden. Bitte wählen Sie eine andere PDF-, PNG- oder JPEG-Datei.
error-value-too-long = „{ $field }“ darf höchstens { $max } Zeichen lang sein.
error-value-character = „{ $field }“ enthält ein Zeichen, das nicht in das Dokument übernommen werden kann ({ $code }). Bitte entfernen Sie es.
error-drawing-too-big = Die Zeichnung für „{ $field }“ ist zu groß. Bitte löschen Sie sie und zeichnen Sie erneut.
error-drawing-unreadable = Die Zeichnung für „{ $field }“ konnte nicht gelesen werden. Bitte löschen Sie sie und zeichnen Sie erneut.
error-drawing-blank = Die Zeichnung für „{ $field }“ ist leer. Bitte zeichnen Sie Ihre Unterschrift.
error-unknown-value = Das Formular enthielt ein Feld, das nicht für Sie bestimmt ist. Laden Sie die Seite neu und versuchen Sie es erneut.

## Der Code-Schritt (Erweiterung E2)

code-title-access = Geben Sie Ihren Zugangscode ein
code-title-email = Geben Sie den Code aus unserer E-Mail ein
code-lead = Hallo { $name }, der Absender möchte bestätigen, dass Sie es sind, bevor Sie das Dokument sehen.
code-intro-access = Der Absender hat Ihnen diesen Code gesondert mitgeteilt, zum Beispiel telefonisch oder per SMS.
code-intro-email = Wir haben einen 6-stelligen Code an { $email } gesendet. Er ist 10 Minuten gültig. Sehen Sie in Ihrem Spam-Ordner nach, falls er nicht angekommen ist.
code-your-email = Ihre E-Mail-Adresse
code-label-access = Zugangscode
code-label-email = Code aus der E-Mail
code-attempts-left = { $count ->
        [one] Noch { $count } Versuch
       *[other] Noch { $count } Versuche
    }, bevor der Link gesperrt wird.
code-continue = Weiter
code-no-email = Nach einer Minute keine E-Mail erhalten?
code-send-new = Neuen Code senden
code-sent = Ein neuer Code ist unterwegs. Nur der neueste Code ist gültig.
code-wrong = Dieser Code ist nicht richtig. { $count ->
        [one] Noch { $count } Versuch
       *[other] Noch { $count } Versuche
    }, bevor der Link gesperrt wird.
code-locked = Zu viele falsche Codes. Der Link ist bis { $until } gesperrt.
code-expired = Dieser Code ist nicht mehr gültig. Fordern Sie einen neuen Code an und geben Sie ihn innerhalb von 10 Minuten ein.
code-too-soon = Vor weniger als einer Minute wurde ein Code gesendet. Sie können in { $seconds ->
        [one] { $seconds } Sekunde
       *[other] { $seconds } Sekunden
    } einen neuen anfordern.
code-intro-email-ask = Klicken Sie unten auf die Schaltfläche, und wir senden einen 6-stelligen Code an Ihre E-Mail-Adresse. Er ist 10 Minuten gültig.
code-send-first = Code senden
code-locked-held = Zu viele falsche Codes. Der Link ist gesperrt: Bitten Sie den Absender, ihn zu entsperren.
code-daily-limit = Heute wurden zu viele Codes gesendet. Sie können um { $until } einen neuen anfordern.
error-code-first-title = Zuerst den Code eingeben
error-code-first = Öffnen Sie den Unterschriftslink und geben Sie Ihren Code ein, um das Dokument zu sehen.

## Die Builder-Seite (Erweiterung E11)

builder-title = Felder platzieren: { $name }
builder-lead = Ziehen Sie Feldtypen auf die Seiten und speichern Sie dann.
builder-palette = Feld hinzufügen
builder-palette-hint = Ziehen Sie einen Typ auf eine Seite oder wählen Sie ihn, um ihn der sichtbaren Seite hinzuzufügen.
builder-keys-hint = Mit der Tabulatortaste erreichen Sie jedes Feld. Die Pfeiltasten verschieben das ausgewählte Feld um 1 pt, mit Umschalt um 10 pt. Entf löscht es.
builder-type-signature = Unterschrift
builder-type-initials = Initialen
builder-type-date = Datum
builder-type-text = Text
builder-type-checkbox = Kontrollkästchen
builder-type-number = Zahl
builder-type-radio = Optionsfelder
builder-type-select = Auswahlliste
builder-type-attachment = Datei
builder-pages = Seiten
builder-document = Dokument { $number }: { $name }
builder-page-unavailable = Das Bild dieser Seite konnte nicht angezeigt werden.
builder-locked = aus dem Dokument, nicht verschiebbar
builder-sender = Absender (beim Erstellen ausgefüllt)
builder-field = Ausgewähltes Feld
builder-field-none = Wählen Sie ein Feld auf einer Seite aus, um es zu ändern.
builder-label-type = Typ
builder-label-role = Rolle
builder-label-signer = Unterzeichner
builder-label-key = Schlüssel
builder-label-label = Bezeichnung für den Unterzeichner
builder-label-required = Pflichtfeld
builder-label-options = Optionen, eine pro Zeile
builder-label-x = Links (pt)
builder-label-y = Oben (pt)
builder-label-width = Breite (pt)
builder-label-height = Höhe (pt)
builder-delete = Feld löschen
builder-roles = Rollen
builder-role-numbered = Rolle { $number }
builder-add-role = Rolle hinzufügen
builder-signers = Unterzeichner
builder-signer-numbered = Unterzeichner { $number }
builder-signer-name = Name
builder-signer-email = E-Mail
builder-add-signer = Unterzeichner hinzufügen
builder-save = Speichern
builder-saving = Wird gespeichert…
builder-saved = Gespeichert.
builder-send = Senden
builder-sending = Wird gesendet…
builder-sent = Gesendet: Die Unterzeichner wurden um ihre Unterschrift gebeten.
builder-unsaved = Änderungen noch nicht gespeichert.
builder-loading = Wird geladen…
builder-not-saved = Nicht gespeichert:
builder-not-sent = Nicht gesendet:
builder-load-failed = Konnte nicht geladen werden:
builder-offline = Der Server war nicht erreichbar. Nichts ging verloren: Versuchen Sie es erneut.
builder-conflict = Dies wurde seit dem Laden der Seite an anderer Stelle geändert, daher wurde nichts gespeichert. Ihr Layout ist weiterhin zu sehen. Laden Sie neu, um den aktuellen Stand zu erhalten (Ihre Änderungen hier gehen dabei verloren).
builder-reload = Neu laden
builder-link-expired = Dieser Builder-Link ist abgelaufen. Öffnen Sie den Builder erneut aus Ihrer App.
builder-added = { $field } hinzugefügt.
builder-deleted = Feld gelöscht.
builder-return = Zurück zur App
builder-expired-title = Link abgelaufen
builder-expired = Dieser Builder-Link ist abgelaufen. Öffnen Sie den Builder erneut aus der App, von der Sie kamen.
builder-unknown = Öffnen Sie den Builder erneut aus der App, von der Sie kamen.

# Approvers, viewers and in-person signing (extensions E13).
email-approve-subject = Bitte genehmigen: { $document }
email-approve-body = Sie werden gebeten, { $document } zu prüfen und zu genehmigen.
email-button-approve = Prüfen und genehmigen
email-view-subject = Für Sie freigegeben: { $document }
email-view-body = { $document } wurde für Sie freigegeben. Es genügt, das Dokument zu öffnen.
email-button-view = Dokument ansehen
email-host-subject = Unterschrift vor Ort: { $document }
email-host-body = Sie betreuen die Unterschrift vor Ort von { $document } durch { $name }. Öffnen Sie den Link auf dem Gerät, das Sie übergeben werden.
email-button-host = Unterschrift vor Ort beginnen
page-title-approve = { $document } genehmigen
page-lead-approve = Guten Tag { $name }, bitte prüfen Sie das Dokument und genehmigen oder lehnen Sie es unten ab.
page-your-approval = Ihre Genehmigung
page-consent-approve = Ich bin damit einverstanden, elektronisch zu genehmigen
page-consent-approve-hint = Meine Genehmigung wird mit Zeitpunkt und diesem Gerät festgehalten und ist ebenso verbindlich wie eine handschriftliche.
page-approve = Genehmigen
page-approving = Wird genehmigt…
page-decline-approve-summary = Genehmigung ablehnen
page-title-view = { $document } ansehen
page-lead-view = Guten Tag { $name }, dieses Dokument wurde für Sie freigegeben. Es genügt, es anzusehen: Sie müssen nichts unterschreiben.
page-viewed = Sie haben dieses Dokument angesehen. Weiter ist nichts zu tun.
handover-title = Bitte übergeben Sie dieses Gerät an { $name }
handover-lead = { $host } betreut die Unterschrift vor Ort von { $document }. Bitte übergeben Sie dieses Gerät an { $name }, um das Dokument zu prüfen und zu unterschreiben.
handover-continue = Ich bin { $name }: weiter
state-approved-title = Sie haben genehmigt
state-approved = Sie haben { $document } genehmigt.
