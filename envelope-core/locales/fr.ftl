# Français. Mêmes clés et variables que en.ftl ; les noms de marque et de produit ({ $service }) ne sont pas traduits.

## Éléments communs

quoted = « { $text } »
required = (obligatoire)
optional = (facultatif)

## E-mails aux signataires

email-hello = Bonjour { $name },
email-footer = Envoyé via { $service }.
email-button-sign = Vérifier et signer
email-open-link = Ouvrez ce lien pour vérifier et signer le document :
email-fallback-link = Si le bouton ne fonctionne pas, copiez ce lien dans votre navigateur :
email-link-until = Le lien est valable jusqu’au { $until }.
email-request-subject = Document à signer : { $document }
email-request-body = Nous vous invitons à signer { $document }.
email-reminder-subject = Rappel : veuillez signer { $document }
email-reminder-body = Pour rappel, { $document } est en attente de votre signature.
email-voided-subject = Annulé : { $document }
email-voided-body = Le document { $document } a été annulé et ne peut plus être signé.
email-reason = Motif : { $reason }
email-nothing-to-do = Vous n’avez rien à faire.
email-completed-subject = Terminé : { $document }
email-completed-body = Tous les signataires ont signé { $document }.
email-completed-attached = Le document signé est joint ({ $file }).
email-completed-not-attached = Le document signé n’a pas pu être joint à cet e-mail (il est peut-être trop volumineux) ; demandez-en une copie à l’expéditeur.
email-copy-body = Vous recevez une copie de { $document } : tous les signataires l’ont signé.
email-copy-attached = Pièces jointes : { $files }.
email-copy-too-large = { $file } est trop volumineux pour être joint ; téléchargez-le dans un délai de { $days ->
        [one] { $days } jour
       *[other] { $days } jours
    }
email-copy-download = Télécharger { $file }
email-code-subject = Votre code pour signer { $document }
email-code-body = Votre code pour ouvrir { $document } est :
email-code-use = Saisissez-le sur la page de signature. Il est valable { $minutes ->
        [one] { $minutes } minute
       *[other] { $minutes } minutes
    }, une seule fois.
email-code-ignore = Si vous n’avez pas ouvert de lien de signature, ignorez cet e-mail : sans le code, personne ne peut voir le document.

## La page de signature

page-skip = Aller au contenu
page-title-sign = Signer { $document }
page-lead = Bonjour { $name }, veuillez vérifier le document et signer ci-dessous.
page-sender-message = Message de l’expéditeur
page-document = Document
page-document-frame = Document à signer : { $document }
page-open-document = Ouvrir le document dans un nouvel onglet
page-picture = Page { $page } sur { $count } : { $document }
page-for-role = Pour { $role }
page-next-field = Champ suivant
page-spot-sign = Signer ici
page-done = Terminé
page-fields-done = Tous les champs obligatoires sont remplis. Relisez, acceptez et signez ci-dessous.
page-your-fields = Vos champs
page-label-signature = Signature
page-label-initials = Initiales
page-label-date = Date
page-label-reason = Motif
page-label-numbered = { $label } { $number }
page-on-page = Page { $page } du document.
page-mode-type = Saisir
page-mode-draw = Dessiner
page-type-signature = Saisissez votre nom complet en guise de signature
page-type-initials = Saisissez vos initiales
page-draw-hint = Dessinez avec une souris, un doigt ou un stylet. Vous préférez le clavier ? Choisissez « Saisir ».
page-drawing-area = { $field } : zone de dessin
page-clear-drawing = Effacer le dessin
page-date-hint = Rempli automatiquement avec la date de votre signature.
page-choose-option = Choisissez une option
page-number-hint = Un nombre, par exemple 12 ou -3.50.
page-computed-hint = Calculé à partir des autres champs ; il change à mesure que vous les remplissez.
page-attachment-hint = Un fichier PDF, PNG ou JPEG de 10 Mo au plus.
page-attachment-camera = Ou prendre une photo
page-signature-page-hint = Apposée sur une page de signature ajoutée à la fin du document.
page-consent = J’accepte de signer électroniquement
page-consent-hint = Ma signature électronique sur ce document a la même valeur qu’une signature manuscrite.
page-sign = Signer
page-signing = Signature en cours…
page-draw-required = Veuillez dessiner votre signature ou choisir « Saisir ».
page-decline-summary = Refuser de signer
page-decline-reason = Motif, communiqué à l’expéditeur
page-decline-hint = Un refus annule l’enveloppe pour tous les signataires. Cette action est irréversible.
page-decline = Refuser

## L’état d’un lien de signature

state-thanks = Merci pour votre signature
state-signed-title = Vous avez signé
state-signed = Vous avez signé { $document }.
state-others-email = Les autres signataires doivent encore signer. Une fois que tout le monde aura signé, vous recevrez le document signé par e-mail.
state-others-sender = Les autres signataires doivent encore signer. L’expéditeur vous préviendra une fois que tout le monde aura signé.
state-completed-title = Tout le monde a signé
state-completed = Tous les signataires ont signé { $document }.
state-completed-email = Une copie du document signé vous est envoyée par e-mail.
state-completed-sender = L’expéditeur dispose du document signé.
state-wait-title = Ce n’est pas encore votre tour
state-wait = Une autre personne doit signer { $document } avant vous.
state-wait-email = Nous vous préviendrons par e-mail lorsque ce sera votre tour.
state-wait-sender = Revenez sur ce lien lorsque l’expéditeur vous indiquera que c’est votre tour.
state-declined-title = Vous avez refusé de signer
state-declined = Vous avez refusé de signer { $document }.
state-declined-note = L’expéditeur a été prévenu et l’enveloppe est annulée pour tous les signataires.
state-voided-title = Cette enveloppe a été annulée
state-voided = L’expéditeur a annulé { $document }. Il n’y a rien à signer.
state-voided-reason = Motif indiqué :
state-expired-title = Ce lien a expiré
state-expired = Le délai pour signer { $document } est dépassé.
state-expired-note = Si vous devez encore signer, demandez un nouveau lien à l’expéditeur.

## Erreurs de la page de signature et valeurs refusées

error-unknown-title = Lien non valide
error-unknown-heading = Ce lien n’est pas valide
error-unknown = Vérifiez que vous avez ouvert le lien complet figurant dans votre e-mail, ou demandez-en un nouveau à l’expéditeur.
error-rate-title = Trop de requêtes
error-rate = Veuillez patienter une minute, puis actualiser la page.
error-method-title = Non disponible
error-method = Cette adresse ne peut pas être utilisée de cette manière.
error-form-title = Non accepté
error-form = Le formulaire n’a pas pu être lu. Revenez en arrière, actualisez la page et réessayez.
error-deleted-title = Document supprimé
error-deleted = Ce document a été supprimé conformément à la politique de conservation des données de l’expéditeur. Demandez-en une copie à l’expéditeur.
error-busy-title = Service occupé
error-busy = De nombreux documents sont en cours de traitement et rien n’a été modifié. Veuillez réessayer dans un instant.
error-slow-title = Délai dépassé
error-slow = Le formulaire a mis trop de temps à arriver. Vérifiez votre connexion et réessayez.
error-generic-title = Une erreur s’est produite
error-generic = Veuillez réessayer dans un instant. Si le problème persiste, contactez l’expéditeur.
error-refused-title = Formulaire non accepté
error-refused = Le formulaire ne provient pas de cette page de signature, ou la page n’est plus à jour. Ouvrez à nouveau le lien de votre e-mail et réessayez.
error-consent = Veuillez cocher « { page-consent } » pour signer.
error-missing = Veuillez remplir « { $field } ».
error-invalid = « { $field } » n’a pas été accepté. Veuillez vérifier la valeur et réessayer.
error-invalid-detail = « { $field } » n’a pas été accepté : { $detail }.
error-value-empty = « { $field } » ne doit pas être vide.
error-value-not-option = « { $field } » doit être l’un des choix proposés.
error-value-not-number = « { $field } » doit être un nombre, par exemple 12 ou -3.50.
error-formula-no-value = « { $field } » est calculé à partir des champs remplis et n’a pas de résultat avec ces valeurs (une division par zéro ou un nombre trop grand). Veuillez les modifier.
error-file-type = « { $field } » doit être un fichier PDF, PNG ou JPEG.
error-file-too-big = Le fichier de « { $field } » est trop volumineux : 10 Mo au plus.
error-file-unreadable = Le fichier de « { $field } » n’a pas pu être lu. Veuillez choisir un autre fichier PDF, PNG ou JPEG.
error-value-too-long = « { $field } » ne doit pas dépasser { $max ->
        [one] { $max } caractère
       *[other] { $max } caractères
    }.
error-value-character = « { $field } » contient un caractère qui ne peut pas figurer dans le document ({ $code }). Veuillez le supprimer.
error-drawing-too-big = Le dessin de « { $field } » est trop volumineux. Effacez-le et dessinez à nouveau.
error-drawing-unreadable = Le dessin de « { $field } » n’a pas pu être lu. Effacez-le et dessinez à nouveau.
error-drawing-blank = Le dessin de « { $field } » est vide. Veuillez dessiner votre signature.
error-unknown-value = Le formulaire contenait un champ qui ne vous est pas destiné. Actualisez la page et réessayez.

## L’étape du code (extension E2)

code-title-access = Saisissez votre code d’accès
code-title-email = Saisissez le code reçu par e-mail
code-lead = Bonjour { $name }, l’expéditeur souhaite confirmer votre identité avant que vous ne voyiez le document.
code-intro-access = L’expéditeur vous a communiqué ce code séparément, par exemple par téléphone ou par SMS.
code-intro-email = Nous avons envoyé un code à 6 chiffres à { $email }. Il est valable 10 minutes. Vérifiez votre dossier de courrier indésirable s’il n’est pas arrivé.
code-your-email = votre adresse e-mail
code-label-access = Code d’accès
code-label-email = Code reçu par e-mail
code-attempts-left = { $count ->
        [one] Encore { $count } essai
       *[other] Encore { $count } essais
    } avant que le lien soit bloqué.
code-continue = Continuer
code-no-email = Pas d’e-mail au bout d’une minute ?
code-send-new = Envoyer un nouveau code
code-sent = Un nouveau code est en route. Seul le code le plus récent est valable.
code-wrong = Ce code n’est pas correct. { $count ->
        [one] Encore { $count } essai
       *[other] Encore { $count } essais
    } avant que le lien soit bloqué.
code-locked = Trop de codes erronés. Le lien est bloqué jusqu’à { $until }.
code-expired = Ce code n’est plus valable. Demandez un nouveau code et saisissez-le dans les 10 minutes.
code-too-soon = Un code a été envoyé il y a moins d’une minute. Vous pourrez en demander un nouveau dans { $seconds ->
        [one] { $seconds } seconde
       *[other] { $seconds } secondes
    }.
code-intro-email-ask = Appuyez sur le bouton ci-dessous et nous enverrons un code à 6 chiffres à votre adresse e-mail. Il est valable 10 minutes.
code-send-first = M’envoyer un code
code-locked-held = Trop de codes erronés. Le lien est bloqué : demandez à l’expéditeur de le débloquer.
code-daily-limit = Trop de codes ont été envoyés aujourd’hui. Vous pourrez en demander un nouveau à { $until }.
error-code-first-title = Saisissez d’abord votre code
error-code-first = Ouvrez le lien de signature et saisissez votre code pour voir le document.

## La page de placement des champs (extension E11)

builder-title = Placer les champs : { $name }
builder-lead = Faites glisser des types de champ sur les pages, puis enregistrez.
builder-palette = Ajouter un champ
builder-palette-hint = Faites glisser un type sur une page, ou choisissez-le pour l’ajouter à la page affichée.
builder-keys-hint = La touche Tab atteint chaque champ. Les flèches déplacent le champ sélectionné de 1 pt, avec Maj de 10 pt. Suppr le supprime.
builder-type-signature = Signature
builder-type-initials = Initiales
builder-type-date = Date
builder-type-text = Texte
builder-type-checkbox = Case à cocher
builder-type-number = Nombre
builder-type-radio = Boutons radio
builder-type-select = Liste déroulante
builder-type-attachment = Fichier
builder-pages = Pages
builder-document = Document { $number } : { $name }
builder-page-unavailable = L’image de cette page n’a pas pu être affichée.
builder-locked = issu du document, non déplaçable
builder-sender = Expéditeur (rempli à la création)
builder-field = Champ sélectionné
builder-field-none = Sélectionnez un champ sur une page pour le modifier.
builder-label-type = Type
builder-label-role = Rôle
builder-label-signer = Signataire
builder-label-key = Clé
builder-label-label = Libellé affiché au signataire
builder-label-required = Obligatoire
builder-label-options = Options, une par ligne
builder-label-x = Gauche (pt)
builder-label-y = Haut (pt)
builder-label-width = Largeur (pt)
builder-label-height = Hauteur (pt)
builder-delete = Supprimer le champ
builder-roles = Rôles
builder-role-numbered = Rôle { $number }
builder-add-role = Ajouter un rôle
builder-signers = Signataires
builder-signer-numbered = Signataire { $number }
builder-signer-name = Nom
builder-signer-email = E-mail
builder-add-signer = Ajouter un signataire
builder-save = Enregistrer
builder-saving = Enregistrement…
builder-saved = Enregistré.
builder-send = Envoyer
builder-sending = Envoi…
builder-sent = Envoyé : les signataires ont été invités à signer.
builder-unsaved = Modifications pas encore enregistrées.
builder-loading = Chargement…
builder-not-saved = Non enregistré :
builder-not-sent = Non envoyé :
builder-load-failed = Chargement impossible :
builder-offline = Le serveur est injoignable. Rien n’a été perdu : réessayez.
builder-conflict = Ceci a été modifié ailleurs depuis le chargement de la page, rien n’a donc été enregistré. Votre mise en page reste affichée. Rechargez pour obtenir la version actuelle (vos modifications ici seront perdues).
builder-reload = Recharger
builder-link-expired = Ce lien a expiré. Rouvrez l’outil depuis votre application.
builder-added = { $field } ajouté.
builder-deleted = Champ supprimé.
builder-return = Retour à l’application
builder-expired-title = Lien expiré
builder-expired = Ce lien a expiré. Rouvrez l’outil depuis l’application d’où vous venez.
builder-unknown = Rouvrez l’outil depuis l’application d’où vous venez.

# Approvers, viewers and in-person signing (extensions E13).
email-approve-subject = Approbation demandée : { $document }
email-approve-body = Vous êtes invité(e) à examiner et approuver { $document }.
email-button-approve = Examiner et approuver
email-view-subject = Partagé avec vous : { $document }
email-view-body = { $document } a été partagé avec vous. Il vous suffit de l’ouvrir.
email-button-view = Voir le document
email-host-subject = Signature en personne : { $document }
email-host-body = Vous accueillez la signature en personne de { $document } par { $name }. Ouvrez le lien sur l’appareil que vous lui remettrez.
email-button-host = Commencer la signature en personne
page-title-approve = Approuver { $document }
page-lead-approve = Bonjour { $name }, veuillez examiner le document, puis l’approuver ou le refuser ci-dessous.
page-your-approval = Votre approbation
page-consent-approve = J’accepte d’approuver électroniquement
page-consent-approve-hint = Mon approbation est enregistrée avec son heure et cet appareil ; elle engage autant qu’une approbation manuscrite.
page-approve = Approuver
page-approving = Approbation…
page-decline-approve-summary = Refuser d’approuver
page-title-view = Voir { $document }
page-lead-view = Bonjour { $name }, ce document a été partagé avec vous. Il suffit de le consulter : il n’y a rien à signer.
page-viewed = Vous avez consulté ce document. Vous n’avez rien d’autre à faire.
handover-title = Veuillez remettre cet appareil à { $name }
handover-lead = { $host } accueille la signature en personne de { $document }. Veuillez remettre cet appareil à { $name }, qui l’examinera et le signera.
handover-continue = Je suis { $name } : continuer
state-approved-title = Vous avez approuvé
state-approved = Vous avez approuvé { $document }.
