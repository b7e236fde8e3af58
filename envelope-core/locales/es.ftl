# Español. Las mismas claves y variables que en.ftl; los nombres de marca y de producto ({ $service }) no se traducen.

## Elementos comunes

quoted = «{ $text }»
required = (obligatorio)
optional = (opcional)

## Correos electrónicos a los firmantes

email-hello = Hola, { $name }:
email-footer = Enviado a través de { $service }.
email-button-sign = Revisar y firmar
email-open-link = Abra este enlace para revisar y firmar el documento:
email-fallback-link = Si el botón no funciona, copie este enlace en su navegador:
email-link-until = El enlace es válido hasta el { $until }.
email-request-subject = Firma solicitada: { $document }
email-request-body = Se le solicita que firme { $document }.
email-reminder-subject = Recordatorio: firme { $document }
email-reminder-body = Le recordamos que { $document } está pendiente de su firma.
email-voided-subject = Anulado: { $document }
email-voided-body = El documento { $document } ha sido anulado y ya no se puede firmar.
email-reason = Motivo: { $reason }
email-nothing-to-do = No tiene que hacer nada.
email-completed-subject = Completado: { $document }
email-completed-body = Todos los firmantes han firmado { $document }.
email-completed-attached = Se adjunta la copia firmada ({ $file }).
email-completed-not-attached = No se ha podido adjuntar la copia firmada a este correo (puede que sea demasiado grande); solicite una copia al remitente.
email-copy-body = Recibe una copia de { $document }: todos los firmantes lo han firmado.
email-copy-attached = Archivos adjuntos: { $files }.
email-copy-too-large = { $file } es demasiado grande para adjuntarlo; descárguelo en un plazo de { $days ->
        [one] { $days } día
       *[other] { $days } días
    }
email-copy-download = Descargar { $file }
email-code-subject = Su código para firmar { $document }
email-code-body = Su código para abrir { $document } es:
email-code-use = Introdúzcalo en la página de firma. Es válido durante { $minutes ->
        [one] { $minutes } minuto
       *[other] { $minutes } minutos
    } y una sola vez.
email-code-ignore = Si no ha abierto ningún enlace de firma, ignore este correo: sin el código nadie puede ver el documento.

## La página de firma

page-skip = Ir al contenido
page-title-sign = Firmar { $document }
page-lead = Hola, { $name }. Revise el documento y fírmelo a continuación.
page-sender-message = Mensaje del remitente
page-document = Documento
page-document-frame = Documento para firmar: { $document }
page-open-document = Abrir el documento en una pestaña nueva
page-picture = Página { $page } de { $count }: { $document }
page-for-role = Para { $role }
page-next-field = Campo siguiente
page-spot-sign = Firme aquí
page-done = Listo
page-fields-done = Todos los campos obligatorios están completos. Revise, acepte y firme abajo.
page-your-fields = Sus campos
page-label-signature = Firma
page-label-initials = Iniciales
page-label-date = Fecha
page-label-reason = Motivo
page-label-numbered = { $label } { $number }
page-on-page = En la página { $page } del documento.
page-mode-type = Escribir
page-mode-draw = Dibujar
page-type-signature = Escriba su nombre completo como firma
page-type-initials = Escriba sus iniciales
page-draw-hint = Dibuje con el ratón, el dedo o un lápiz. ¿Prefiere el teclado? Elija «Escribir».
page-drawing-area = { $field }: área de dibujo
page-clear-drawing = Borrar dibujo
page-date-hint = Se rellena automáticamente con la fecha en que firme.
page-choose-option = Elija una opción
page-number-hint = Un número, por ejemplo 12 o -3.50.
page-computed-hint = Se calcula a partir de los otros campos y cambia mientras los rellena.
page-attachment-hint = Un archivo PDF, PNG o JPEG de 10 MB como máximo.
page-attachment-camera = O haga una foto
page-signature-page-hint = Se coloca en una página de firma añadida al final del documento.
page-consent = Acepto firmar electrónicamente
page-consent-hint = Mi firma electrónica en este documento es tan vinculante como una firma manuscrita.
page-sign = Firmar
page-signing = Firmando…
page-draw-required = Dibuje su firma o elija «Escribir».
page-decline-summary = Rechazar la firma
page-decline-reason = Motivo, visible para el remitente
page-decline-hint = Al rechazar, el sobre se cancela para todos. Esta acción no se puede deshacer.
page-decline = Rechazar

## El estado de un enlace de firma

state-thanks = Gracias por firmar
state-signed-title = Ha firmado
state-signed = Ha firmado { $document }.
state-others-email = Aún faltan otros firmantes. Cuando todos hayan firmado, recibirá el documento firmado por correo electrónico.
state-others-sender = Aún faltan otros firmantes. El remitente le avisará cuando todos hayan firmado.
state-completed-title = Todos han firmado
state-completed = Todos los firmantes han firmado { $document }.
state-completed-email = Recibirá una copia del documento firmado por correo electrónico.
state-completed-sender = El remitente tiene el documento firmado.
state-wait-title = Todavía no es su turno
state-wait = Otra persona debe firmar { $document } antes que usted.
state-wait-email = Le enviaremos un correo electrónico cuando sea su turno.
state-wait-sender = Vuelva a este enlace cuando el remitente le indique que es su turno.
state-declined-title = Ha rechazado la firma
state-declined = Ha rechazado firmar { $document }.
state-declined-note = Se ha informado al remitente y el sobre se ha cancelado para todos.
state-voided-title = Este sobre se ha cancelado
state-voided = El remitente ha cancelado { $document }. No hay nada que firmar.
state-voided-reason = Motivo indicado:
state-expired-title = Este enlace ha caducado
state-expired = El plazo para firmar { $document } ha finalizado.
state-expired-note = Si aún necesita firmar, solicite un nuevo enlace al remitente.

## Errores de la página de firma y valores rechazados

error-unknown-title = Enlace no válido
error-unknown-heading = Este enlace no es válido
error-unknown = Compruebe que ha abierto el enlace completo de su correo electrónico o solicite uno nuevo al remitente.
error-rate-title = Demasiadas solicitudes
error-rate = Espere un minuto y vuelva a cargar la página.
error-method-title = No disponible
error-method = Esta dirección no se puede usar de esta forma.
error-form-title = No aceptado
error-form = No se ha podido leer el formulario. Vuelva atrás, recargue la página e inténtelo de nuevo.
error-deleted-title = Documento eliminado
error-deleted = Este documento se ha eliminado según la política de conservación de datos del remitente. Solicite una copia al remitente.
error-busy-title = Servicio ocupado
error-busy = En este momento se están procesando muchos documentos y no se ha modificado nada. Vuelva a intentarlo en unos instantes.
error-slow-title = Tiempo agotado
error-slow = El formulario ha tardado demasiado en llegar. Compruebe su conexión e inténtelo de nuevo.
error-generic-title = Se ha producido un error
error-generic = Vuelva a intentarlo en unos instantes. Si el problema continúa, póngase en contacto con el remitente.
error-refused-title = Formulario no aceptado
error-refused = El formulario no procede de esta página de firma o la página está desactualizada. Vuelva a abrir el enlace de su correo electrónico e inténtelo de nuevo.
error-consent = Marque «{ page-consent }» para firmar.
error-missing = Rellene «{ $field }».
error-invalid = No se ha aceptado «{ $field }». Revíselo e inténtelo de nuevo.
error-invalid-detail = No se ha aceptado «{ $field }»: { $detail }.
error-value-empty = «{ $field }» no puede estar vacío.
error-value-not-option = «{ $field }» debe ser una de las opciones mostradas.
error-value-not-number = «{ $field }» debe ser un número, por ejemplo 12 o -3.50.
error-formula-no-value = «{ $field }» se calcula a partir de los campos que ha rellenado y con estos valores no tiene resultado (una división por cero o un número demasiado grande). Cámbielos, por favor.
error-file-type = «{ $field }» debe ser un archivo PDF, PNG o JPEG.
error-file-too-big = El archivo de «{ $field }» es demasiado grande: 10 MB como máximo.
error-file-unreadable = No se pudo leer el archivo de «{ $field }». Elija otro archivo PDF, PNG o JPEG.
error-value-too-long = «{ $field }» puede tener como máximo { $max ->
        [one] { $max } carácter
       *[other] { $max } caracteres
    }.
error-value-character = «{ $field }» contiene un carácter que no se puede incluir en el documento ({ $code }). Elimínelo.
error-drawing-too-big = El dibujo de «{ $field }» es demasiado grande. Bórrelo y vuelva a dibujar.
error-drawing-unreadable = No se ha podido leer el dibujo de «{ $field }». Bórrelo y vuelva a dibujar.
error-drawing-blank = El dibujo de «{ $field }» está vacío. Dibuje su firma.
error-unknown-value = El formulario ha enviado un campo que no le corresponde rellenar. Recargue la página e inténtelo de nuevo.

## El paso del código (extensión E2)

code-title-access = Introduzca su código de acceso
code-title-email = Introduzca el código que le enviamos por correo
code-lead = Hola, { $name }: el remitente desea confirmar su identidad antes de que vea el documento.
code-intro-access = El remitente le ha facilitado este código por separado, por ejemplo por teléfono o SMS.
code-intro-email = Hemos enviado un código de 6 dígitos a { $email }. Es válido durante 10 minutos. Revise su carpeta de correo no deseado si no lo ha recibido.
code-your-email = su dirección de correo electrónico
code-label-access = Código de acceso
code-label-email = Código del correo
code-attempts-left = { $count ->
        [one] Le queda { $count } intento
       *[other] Le quedan { $count } intentos
    } antes de que el enlace se bloquee.
code-continue = Continuar
code-no-email = ¿No ha recibido el correo al cabo de un minuto?
code-send-new = Enviar un código nuevo
code-sent = Le hemos enviado un código nuevo. Solo es válido el código más reciente.
code-wrong = El código no es correcto. { $count ->
        [one] Le queda { $count } intento
       *[other] Le quedan { $count } intentos
    } antes de que el enlace se bloquee.
code-locked = Demasiados códigos incorrectos. El enlace está bloqueado hasta las { $until }.
code-expired = Este código ya no es válido. Solicite un código nuevo e introdúzcalo en un plazo de 10 minutos.
code-too-soon = Se envió un código hace menos de un minuto. Podrá solicitar uno nuevo dentro de { $seconds ->
        [one] { $seconds } segundo
       *[other] { $seconds } segundos
    }.
code-intro-email-ask = Pulse el botón de abajo y le enviaremos un código de 6 dígitos a su correo electrónico. Es válido durante 10 minutos.
code-send-first = Enviarme un código
code-locked-held = Demasiados códigos incorrectos. El enlace está bloqueado: pida al remitente que lo desbloquee.
code-daily-limit = Hoy se han enviado demasiados códigos. Puede pedir uno nuevo a las { $until }.
error-code-first-title = Introduzca primero su código
error-code-first = Abra el enlace de firma e introduzca su código para ver el documento.

## La página para colocar campos (extensión E11)

builder-title = Colocar campos: { $name }
builder-lead = Arrastre tipos de campo a las páginas y después guarde.
builder-palette = Añadir un campo
builder-palette-hint = Arrastre un tipo a una página, o elíjalo para añadirlo a la página visible.
builder-keys-hint = Con Tab se llega a cada campo. Las flechas mueven el campo seleccionado 1 pt, con Mayús 10 pt. Supr lo elimina.
builder-type-signature = Firma
builder-type-initials = Iniciales
builder-type-date = Fecha
builder-type-text = Texto
builder-type-checkbox = Casilla
builder-type-number = Número
builder-type-radio = Botones de opción
builder-type-select = Lista desplegable
builder-type-attachment = Archivo
builder-pages = Páginas
builder-document = Documento { $number }: { $name }
builder-page-unavailable = No se pudo mostrar la imagen de esta página.
builder-locked = del documento, no se puede mover
builder-sender = Remitente (se rellena al crear)
builder-field = Campo seleccionado
builder-field-none = Seleccione un campo en una página para cambiarlo.
builder-label-type = Tipo
builder-label-role = Rol
builder-label-signer = Firmante
builder-label-key = Clave
builder-label-label = Etiqueta que ve el firmante
builder-label-required = Obligatorio
builder-label-options = Opciones, una por línea
builder-label-x = Izquierda (pt)
builder-label-y = Arriba (pt)
builder-label-width = Ancho (pt)
builder-label-height = Alto (pt)
builder-delete = Eliminar campo
builder-roles = Roles
builder-role-numbered = Rol { $number }
builder-add-role = Añadir rol
builder-signers = Firmantes
builder-signer-numbered = Firmante { $number }
builder-signer-name = Nombre
builder-signer-email = Correo electrónico
builder-add-signer = Añadir firmante
builder-save = Guardar
builder-saving = Guardando…
builder-saved = Guardado.
builder-send = Enviar
builder-sending = Enviando…
builder-sent = Enviado: se ha pedido a los firmantes que firmen.
builder-unsaved = Cambios aún sin guardar.
builder-loading = Cargando…
builder-not-saved = No guardado:
builder-not-sent = No enviado:
builder-load-failed = No se pudo cargar:
builder-offline = No se pudo contactar con el servidor. No se ha perdido nada: inténtelo de nuevo.
builder-conflict = Esto se modificó en otro lugar desde que se cargó la página, así que no se guardó nada. Su diseño sigue en pantalla. Recargue para obtener la versión actual (sus cambios aquí se perderán).
builder-reload = Recargar
builder-link-expired = Este enlace ha caducado. Abra de nuevo el editor desde su aplicación.
builder-added = { $field } añadido.
builder-deleted = Campo eliminado.
builder-return = Volver a la aplicación
builder-expired-title = Enlace caducado
builder-expired = Este enlace ha caducado. Abra de nuevo el editor desde la aplicación de la que viene.
builder-unknown = Abra de nuevo el editor desde la aplicación de la que viene.

# Approvers, viewers and in-person signing (extensions E13).
email-approve-subject = Aprobación solicitada: { $document }
email-approve-body = Se le pide que revise y apruebe { $document }.
email-button-approve = Revisar y aprobar
email-view-subject = Compartido con usted: { $document }
email-view-body = Se ha compartido { $document } con usted. Basta con abrirlo.
email-button-view = Ver el documento
email-host-subject = Firma en persona: { $document }
email-host-body = Usted acompaña la firma en persona de { $document } por { $name }. Abra el enlace en el dispositivo que le entregará.
email-button-host = Comenzar la firma en persona
page-title-approve = Aprobar { $document }
page-lead-approve = Hola { $name }, revise el documento y apruébelo o recháchelo abajo.
page-your-approval = Su aprobación
page-consent-approve = Acepto aprobar electrónicamente
page-consent-approve-hint = Mi aprobación queda registrada con su hora y este dispositivo, y es tan vinculante como una manuscrita.
page-approve = Aprobar
page-approving = Aprobando…
page-decline-approve-summary = Rechazar la aprobación
page-title-view = Ver { $document }
page-lead-view = Hola { $name }, se ha compartido este documento con usted. Basta con verlo: no hay nada que firmar.
page-viewed = Ha visto este documento. No necesita hacer nada más.
handover-title = Entregue este dispositivo a { $name }
handover-lead = { $host } acompaña la firma en persona de { $document }. Entregue este dispositivo a { $name }, que lo revisará y firmará.
handover-continue = Soy { $name }: continuar
state-approved-title = Ha aprobado
state-approved = Ha aprobado { $document }.
