# Italiano. Stesse chiavi e variabili di en.ftl; i nomi di marchi e prodotti ({ $service }) non si traducono.

## Elementi comuni

quoted = «{ $text }»
required = (obbligatorio)
optional = (facoltativo)

## E-mail ai firmatari

email-hello = Gentile { $name },
email-footer = Inviato tramite { $service }.
email-button-sign = Rivedi e firma
email-open-link = Apra questo link per rivedere e firmare il documento:
email-fallback-link = Se il pulsante non funziona, copi questo link nel browser:
email-link-until = Il link è valido fino al { $until }.
email-request-subject = Documento da firmare: { $document }
email-request-body = La invitiamo a firmare { $document }.
email-reminder-subject = Promemoria: firmi { $document }
email-reminder-body = Le ricordiamo che { $document } è in attesa della sua firma.
email-voided-subject = Annullato: { $document }
email-voided-body = Il documento { $document } è stato annullato e non può più essere firmato.
email-reason = Motivo: { $reason }
email-nothing-to-do = Non è richiesta alcuna azione da parte sua.
email-completed-subject = Completato: { $document }
email-completed-body = Tutti i firmatari hanno firmato { $document }.
email-completed-attached = In allegato trova la copia firmata ({ $file }).
email-completed-not-attached = Non è stato possibile allegare la copia firmata a questa e-mail (potrebbe essere troppo grande); ne richieda una copia al mittente.
email-copy-body = Riceve una copia di { $document }: tutti i firmatari l’hanno firmato.
email-copy-attached = Allegati: { $files }.
email-copy-too-large = { $file } è troppo grande per essere allegato; lo scarichi entro { $days ->
        [one] { $days } giorno
       *[other] { $days } giorni
    }
email-copy-download = Scarica { $file }
email-code-subject = Il suo codice per firmare { $document }
email-code-body = Il suo codice per aprire { $document } è:
email-code-use = Lo inserisca nella pagina di firma. È valido per { $minutes ->
        [one] { $minutes } minuto
       *[other] { $minutes } minuti
    }, una sola volta.
email-code-ignore = Se non ha aperto alcun link di firma, ignori questa e-mail: senza il codice nessuno può vedere il documento.

## La pagina di firma

page-skip = Vai al contenuto
page-title-sign = Firma { $document }
page-lead = Gentile { $name }, esamini il documento e firmi qui sotto.
page-sender-message = Messaggio del mittente
page-document = Documento
page-document-frame = Documento da firmare: { $document }
page-open-document = Apri il documento in una nuova scheda
page-picture = Pagina { $page } di { $count }: { $document }
page-for-role = Per { $role }
page-next-field = Campo successivo
page-spot-sign = Firmi qui
page-done = Fatto
page-fields-done = Tutti i campi obbligatori sono compilati. Controlli, accetti e firmi qui sotto.
page-your-fields = I suoi campi
page-label-signature = Firma
page-label-initials = Iniziali
page-label-date = Data
page-label-reason = Motivo
page-label-numbered = { $label } { $number }
page-on-page = A pagina { $page } del documento.
page-mode-type = Digita
page-mode-draw = Disegna
page-type-signature = Digiti il suo nome completo come firma
page-type-initials = Digiti le sue iniziali
page-draw-hint = Disegni con il mouse, con un dito o con una penna. Preferisce la tastiera? Scelga «Digita».
page-drawing-area = { $field }: area di disegno
page-clear-drawing = Cancella disegno
page-date-hint = Compilato automaticamente con la data della firma.
page-choose-option = Scelga un’opzione
page-number-hint = Un numero, ad esempio 12 o -3.50.
page-computed-hint = Calcolato dagli altri campi; cambia mentre li compila.
page-attachment-hint = Un file PDF, PNG o JPEG di al massimo 10 MB.
page-attachment-camera = Oppure scatta una foto
page-signature-page-hint = Apposta su una pagina delle firme aggiunta alla fine del documento.
page-consent = Accetto di firmare elettronicamente
page-consent-hint = La mia firma elettronica su questo documento è vincolante quanto una firma autografa.
page-sign = Firma
page-signing = Firma in corso…
page-draw-required = Disegni la sua firma oppure scelga «Digita».
page-decline-summary = Rifiuta di firmare
page-decline-reason = Motivo, visibile al mittente
page-decline-hint = Il rifiuto annulla la busta per tutti. L’operazione non può essere annullata.
page-decline = Rifiuta

## Lo stato di un link di firma

state-thanks = Grazie per aver firmato
state-signed-title = Ha firmato
state-signed = Ha firmato { $document }.
state-others-email = Gli altri firmatari devono ancora firmare. Quando tutti avranno firmato, riceverà il documento firmato via e-mail.
state-others-sender = Gli altri firmatari devono ancora firmare. Il mittente la informerà quando tutti avranno firmato.
state-completed-title = Tutti hanno firmato
state-completed = Tutti i firmatari hanno firmato { $document }.
state-completed-email = Una copia del documento firmato le verrà inviata via e-mail.
state-completed-sender = Il documento firmato è in possesso del mittente.
state-wait-title = Non è ancora il suo turno
state-wait = Un’altra persona deve firmare { $document } prima di lei.
state-wait-email = Le invieremo un’e-mail quando sarà il suo turno.
state-wait-sender = Torni a questo link quando il mittente le comunicherà che è il suo turno.
state-declined-title = Ha rifiutato di firmare
state-declined = Ha rifiutato di firmare { $document }.
state-declined-note = Il mittente è stato informato e la busta è stata annullata per tutti.
state-voided-title = Questa busta è stata annullata
state-voided = Il mittente ha annullato { $document }. Non c’è nulla da firmare.
state-voided-reason = Motivo indicato:
state-expired-title = Questo link è scaduto
state-expired = Il termine per firmare { $document } è scaduto.
state-expired-note = Se deve ancora firmare, richieda un nuovo link al mittente.

## Errori della pagina di firma e valori non accettati

error-unknown-title = Link non valido
error-unknown-heading = Questo link non è valido
error-unknown = Verifichi di aver aperto il link completo ricevuto via e-mail, oppure ne richieda uno nuovo al mittente.
error-rate-title = Troppe richieste
error-rate = Attenda un minuto, quindi ricarichi la pagina.
error-method-title = Non disponibile
error-method = Questo indirizzo non può essere utilizzato in questo modo.
error-form-title = Non accettato
error-form = Non è stato possibile leggere il modulo. Torni indietro, ricarichi la pagina e riprovi.
error-deleted-title = Documento eliminato
error-deleted = Questo documento è stato eliminato in base alla politica di conservazione dei dati del mittente. Ne richieda una copia al mittente.
error-busy-title = Servizio occupato
error-busy = Al momento è in corso l’elaborazione di molti documenti e non è stato modificato nulla. Riprovi tra qualche istante.
error-slow-title = Tempo scaduto
error-slow = Il modulo ha impiegato troppo tempo ad arrivare. Verifichi la connessione e riprovi.
error-generic-title = Si è verificato un errore
error-generic = Riprovi tra qualche istante. Se il problema persiste, contatti il mittente.
error-refused-title = Modulo non accettato
error-refused = Il modulo non proviene da questa pagina di firma oppure la pagina non è aggiornata. Riapra il link ricevuto via e-mail e riprovi.
error-consent = Selezioni «{ page-consent }» per firmare.
error-missing = Compili «{ $field }».
error-invalid = «{ $field }» non è stato accettato. Controlli il valore e riprovi.
error-invalid-detail = «{ $field }» non è stato accettato: { $detail }.
error-value-empty = «{ $field }» non può essere vuoto.
error-value-not-option = «{ $field }» deve essere una delle scelte mostrate.
error-value-not-number = «{ $field }» deve essere un numero, ad esempio 12 o -3.50.
error-formula-no-value = «{ $field }» è calcolato dai campi compilati e con questi valori non ha un risultato (una divisione per zero o un numero troppo grande). La preghiamo di modificarli.
error-file-type = «{ $field }» deve essere un file PDF, PNG o JPEG.
error-file-too-big = Il file per «{ $field }» è troppo grande: al massimo 10 MB.
error-file-unreadable = Non è stato possibile leggere il file per «{ $field }». Scegli un altro file PDF, PNG o JPEG.
error-value-too-long = «{ $field }» può contenere al massimo { $max ->
        [one] { $max } carattere
       *[other] { $max } caratteri
    }.
error-value-character = «{ $field }» contiene un carattere che non può essere inserito nel documento ({ $code }). Lo rimuova.
error-drawing-too-big = Il disegno per «{ $field }» è troppo grande. Lo cancelli e disegni di nuovo.
error-drawing-unreadable = Non è stato possibile leggere il disegno per «{ $field }». Lo cancelli e disegni di nuovo.
error-drawing-blank = Il disegno per «{ $field }» è vuoto. Disegni la sua firma.
error-unknown-value = Il modulo ha inviato un campo che non spetta a lei compilare. Ricarichi la pagina e riprovi.

## Il passaggio del codice (estensione E2)

code-title-access = Inserisca il suo codice di accesso
code-title-email = Inserisca il codice ricevuto via e-mail
code-lead = Gentile { $name }, il mittente desidera confermare la sua identità prima che lei veda il documento.
code-intro-access = Il mittente le ha comunicato questo codice separatamente, ad esempio per telefono o SMS.
code-intro-email = Abbiamo inviato un codice di 6 cifre a { $email }. È valido per 10 minuti. Se non è arrivato, controlli la cartella della posta indesiderata.
code-your-email = il suo indirizzo e-mail
code-label-access = Codice di accesso
code-label-email = Codice ricevuto via e-mail
code-attempts-left = { $count ->
        [one] Resta { $count } tentativo
       *[other] Restano { $count } tentativi
    } prima che il link venga bloccato.
code-continue = Continua
code-no-email = Nessuna e-mail dopo un minuto?
code-send-new = Invia un nuovo codice
code-sent = Un nuovo codice è in arrivo. È valido solo il codice più recente.
code-wrong = Il codice non è corretto. { $count ->
        [one] Resta { $count } tentativo
       *[other] Restano { $count } tentativi
    } prima che il link venga bloccato.
code-locked = Troppi codici errati. Il link è bloccato fino alle { $until }.
code-expired = Questo codice non è più valido. Richieda un nuovo codice e lo inserisca entro 10 minuti.
code-too-soon = È stato inviato un codice meno di un minuto fa. Potrà richiederne uno nuovo tra { $seconds ->
        [one] { $seconds } secondo
       *[other] { $seconds } secondi
    }.
code-intro-email-ask = Premi il pulsante qui sotto e invieremo un codice di 6 cifre al tuo indirizzo email. È valido per 10 minuti.
code-send-first = Inviami un codice
code-locked-held = Troppi codici errati. Il link è bloccato: chiedi al mittente di sbloccarlo.
code-daily-limit = Oggi sono stati inviati troppi codici. Potrai chiederne uno nuovo alle { $until }.
error-code-first-title = Inserisca prima il codice
error-code-first = Apra il link di firma e inserisca il suo codice per vedere il documento.

## La pagina per posizionare i campi (estensione E11)

builder-title = Posiziona i campi: { $name }
builder-lead = Trascini i tipi di campo sulle pagine, poi salvi.
builder-palette = Aggiungi un campo
builder-palette-hint = Trascini un tipo su una pagina, oppure lo scelga per aggiungerlo alla pagina visibile.
builder-keys-hint = Con Tab si raggiunge ogni campo. Le frecce spostano il campo selezionato di 1 pt, con Maiusc di 10 pt. Canc lo elimina.
builder-type-signature = Firma
builder-type-initials = Iniziali
builder-type-date = Data
builder-type-text = Testo
builder-type-checkbox = Casella di controllo
builder-type-number = Numero
builder-type-radio = Pulsanti di opzione
builder-type-select = Elenco a discesa
builder-type-attachment = File
builder-pages = Pagine
builder-document = Documento { $number }: { $name }
builder-page-unavailable = Non è stato possibile mostrare l’immagine di questa pagina.
builder-locked = dal documento, non spostabile
builder-sender = Mittente (compilato alla creazione)
builder-field = Campo selezionato
builder-field-none = Selezioni un campo su una pagina per modificarlo.
builder-label-type = Tipo
builder-label-role = Ruolo
builder-label-signer = Firmatario
builder-label-key = Chiave
builder-label-label = Etichetta mostrata al firmatario
builder-label-required = Obbligatorio
builder-label-options = Opzioni, una per riga
builder-label-x = Sinistra (pt)
builder-label-y = Alto (pt)
builder-label-width = Larghezza (pt)
builder-label-height = Altezza (pt)
builder-delete = Elimina campo
builder-roles = Ruoli
builder-role-numbered = Ruolo { $number }
builder-add-role = Aggiungi ruolo
builder-signers = Firmatari
builder-signer-numbered = Firmatario { $number }
builder-signer-name = Nome
builder-signer-email = E-mail
builder-add-signer = Aggiungi firmatario
builder-save = Salva
builder-saving = Salvataggio…
builder-saved = Salvato.
builder-send = Invia
builder-sending = Invio…
builder-sent = Inviato: ai firmatari è stato chiesto di firmare.
builder-unsaved = Modifiche non ancora salvate.
builder-loading = Caricamento…
builder-not-saved = Non salvato:
builder-not-sent = Non inviato:
builder-load-failed = Impossibile caricare:
builder-offline = Il server non è raggiungibile. Non è andato perso nulla: riprovi.
builder-conflict = È stato modificato altrove dopo il caricamento della pagina, quindi non è stato salvato nulla. Il Suo layout è ancora sullo schermo. Ricarichi per avere la versione attuale (le modifiche fatte qui andranno perse).
builder-reload = Ricarica
builder-link-expired = Questo link è scaduto. Riapra l’editor dalla Sua app.
builder-added = { $field } aggiunto.
builder-deleted = Campo eliminato.
builder-return = Torna all’app
builder-expired-title = Link scaduto
builder-expired = Questo link è scaduto. Riapra l’editor dall’app da cui proviene.
builder-unknown = Riapra l’editor dall’app da cui proviene.

# Approvers, viewers and in-person signing (extensions E13).
email-approve-subject = Approvazione richiesta: { $document }
email-approve-body = Le chiediamo di esaminare e approvare { $document }.
email-button-approve = Esamina e approva
email-view-subject = Condiviso con lei: { $document }
email-view-body = { $document } è stato condiviso con lei. Basta aprirlo.
email-button-view = Visualizza il documento
email-host-subject = Firma in presenza: { $document }
email-host-body = Lei assiste alla firma in presenza di { $document } da parte di { $name }. Apra il link sul dispositivo che gli consegnerà.
email-button-host = Avvia la firma in presenza
page-title-approve = Approva { $document }
page-lead-approve = Buongiorno { $name }, esamini il documento, poi lo approvi o lo rifiuti qui sotto.
page-your-approval = La sua approvazione
page-consent-approve = Accetto di approvare elettronicamente
page-consent-approve-hint = La mia approvazione è registrata con l’ora e questo dispositivo ed è vincolante quanto una scritta a mano.
page-approve = Approva
page-approving = Approvazione in corso…
page-decline-approve-summary = Rifiuta l’approvazione
page-title-view = Visualizza { $document }
page-lead-view = Buongiorno { $name }, questo documento è stato condiviso con lei. Basta visualizzarlo: non c’è nulla da firmare.
page-viewed = Ha visualizzato questo documento. Non serve altro da parte sua.
handover-title = Consegni questo dispositivo a { $name }
handover-lead = { $host } assiste alla firma in presenza di { $document }. Consegni questo dispositivo a { $name }, che lo esaminerà e firmerà.
handover-continue = Sono { $name }: continua
state-approved-title = Ha approvato
state-approved = Ha approvato { $document }.
