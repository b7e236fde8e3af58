# Português (do Brasil). Mesmas chaves e variáveis que en.ftl; nomes de marcas e produtos ({ $service }) não são traduzidos.

## Elementos comuns

quoted = “{ $text }”
required = (obrigatório)
optional = (opcional)

## E-mails aos signatários

email-hello = Olá, { $name },
email-footer = Enviado por meio de { $service }.
email-button-sign = Revisar e assinar
email-open-link = Abra este link para revisar e assinar o documento:
email-fallback-link = Se o botão não funcionar, copie este link no seu navegador:
email-link-until = O link é válido até { $until }.
email-request-subject = Assinatura solicitada: { $document }
email-request-body = Solicitamos a sua assinatura em { $document }.
email-reminder-subject = Lembrete: assine { $document }
email-reminder-body = Este é um lembrete de que { $document } aguarda a sua assinatura.
email-voided-subject = Cancelado: { $document }
email-voided-body = O documento { $document } foi cancelado e não pode mais ser assinado.
email-reason = Motivo: { $reason }
email-nothing-to-do = Nenhuma ação é necessária da sua parte.
email-completed-subject = Concluído: { $document }
email-completed-body = Todos os signatários assinaram { $document }.
email-completed-attached = A cópia assinada está em anexo ({ $file }).
email-completed-not-attached = Não foi possível anexar a cópia assinada a este e-mail (ela pode ser grande demais); solicite uma cópia ao remetente.
email-copy-body = Você está recebendo uma cópia de { $document }: todos os signatários já assinaram.
email-copy-attached = Anexos: { $files }.
email-copy-too-large = { $file } é grande demais para ser anexado; faça o download em até { $days ->
        [one] { $days } dia
       *[other] { $days } dias
    }
email-copy-download = Baixar { $file }
email-code-subject = Seu código para assinar { $document }
email-code-body = Seu código para abrir { $document } é:
email-code-use = Digite-o na página de assinatura. Ele vale por { $minutes ->
        [one] { $minutes } minuto
       *[other] { $minutes } minutos
    }, uma única vez.
email-code-ignore = Se você não abriu nenhum link de assinatura, ignore este e-mail: sem o código, ninguém pode ver o documento.

## A página de assinatura

page-skip = Ir para o conteúdo
page-title-sign = Assinar { $document }
page-lead = Olá, { $name }. Revise o documento e assine abaixo.
page-sender-message = Mensagem do remetente
page-document = Documento
page-document-frame = Documento para assinar: { $document }
page-open-document = Abrir o documento em uma nova aba
page-picture = Página { $page } de { $count }: { $document }
page-for-role = Para { $role }
page-next-field = Próximo campo
page-spot-sign = Assine aqui
page-done = Concluído
page-fields-done = Todos os campos obrigatórios estão preenchidos. Revise, aceite e assine abaixo.
page-your-fields = Seus campos
page-label-signature = Assinatura
page-label-initials = Iniciais
page-label-date = Data
page-label-reason = Motivo
page-label-numbered = { $label } { $number }
page-on-page = Na página { $page } do documento.
page-mode-type = Digitar
page-mode-draw = Desenhar
page-type-signature = Digite seu nome completo como assinatura
page-type-initials = Digite suas iniciais
page-draw-hint = Desenhe com o mouse, o dedo ou uma caneta. Prefere o teclado? Escolha “Digitar”.
page-drawing-area = { $field }: área de desenho
page-clear-drawing = Limpar desenho
page-date-hint = Preenchido automaticamente com a data da sua assinatura.
page-choose-option = Escolha uma opção
page-number-hint = Um número, por exemplo 12 ou -3.50.
page-computed-hint = Calculado a partir dos outros campos; muda à medida que os preenche.
page-attachment-hint = Um ficheiro PDF, PNG ou JPEG de no máximo 10 MB.
page-attachment-camera = Ou tire uma fotografia
page-signature-page-hint = Inserida em uma página de assinaturas adicionada ao final do documento.
page-consent = Concordo em assinar eletronicamente
page-consent-hint = Minha assinatura eletrônica neste documento tem a mesma validade que uma assinatura de próprio punho.
page-sign = Assinar
page-signing = Assinando…
page-draw-required = Desenhe sua assinatura ou escolha “Digitar”.
page-decline-summary = Recusar assinatura
page-decline-reason = Motivo, exibido ao remetente
page-decline-hint = A recusa cancela o envelope para todos. Essa ação não pode ser desfeita.
page-decline = Recusar

## O status de um link de assinatura

state-thanks = Obrigado por assinar
state-signed-title = Você assinou
state-signed = Você assinou { $document }.
state-others-email = Os outros signatários ainda precisam assinar. Quando todos tiverem assinado, você receberá o documento assinado por e-mail.
state-others-sender = Os outros signatários ainda precisam assinar. O remetente avisará você quando todos tiverem assinado.
state-completed-title = Todos assinaram
state-completed = Todos os signatários assinaram { $document }.
state-completed-email = Uma cópia do documento assinado está a caminho do seu e-mail.
state-completed-sender = O remetente está com o documento assinado.
state-wait-title = Ainda não é a sua vez
state-wait = Outra pessoa precisa assinar { $document } antes de você.
state-wait-email = Enviaremos um e-mail quando for a sua vez.
state-wait-sender = Volte a este link quando o remetente informar que é a sua vez.
state-declined-title = Você recusou a assinatura
state-declined = Você recusou a assinatura de { $document }.
state-declined-note = O remetente foi avisado e o envelope foi cancelado para todos.
state-voided-title = Este envelope foi cancelado
state-voided = O remetente cancelou { $document }. Não há nada para assinar.
state-voided-reason = Motivo informado:
state-expired-title = Este link expirou
state-expired = O prazo para assinar { $document } terminou.
state-expired-note = Se ainda precisar assinar, solicite um novo link ao remetente.

## Erros da página de assinatura e valores recusados

error-unknown-title = Link inválido
error-unknown-heading = Este link não é válido
error-unknown = Verifique se você abriu o link completo do seu e-mail ou solicite um novo ao remetente.
error-rate-title = Solicitações em excesso
error-rate = Aguarde um minuto e recarregue a página.
error-method-title = Indisponível
error-method = Este endereço não pode ser usado dessa forma.
error-form-title = Não aceito
error-form = Não foi possível ler o formulário. Volte, recarregue a página e tente novamente.
error-deleted-title = Documento excluído
error-deleted = Este documento foi excluído de acordo com a política de retenção de dados do remetente. Solicite uma cópia ao remetente.
error-busy-title = Serviço ocupado
error-busy = Muitos documentos estão sendo processados no momento e nada foi alterado. Tente novamente em instantes.
error-slow-title = Tempo esgotado
error-slow = O formulário demorou demais para chegar. Verifique sua conexão e tente novamente.
error-generic-title = Algo deu errado
error-generic = Tente novamente em instantes. Se o problema continuar, entre em contato com o remetente.
error-refused-title = Formulário não aceito
error-refused = O formulário não veio desta página de assinatura ou a página está desatualizada. Abra novamente o link do seu e-mail e tente outra vez.
error-consent = Marque “{ page-consent }” para assinar.
error-missing = Preencha “{ $field }”.
error-invalid = “{ $field }” não foi aceito. Verifique o valor e tente novamente.
error-invalid-detail = “{ $field }” não foi aceito: { $detail }.
error-value-empty = “{ $field }” não pode ficar em branco.
error-value-not-option = “{ $field }” deve ser uma das opções mostradas.
error-value-not-number = “{ $field }” deve ser um número, por exemplo 12 ou -3.50.
error-formula-no-value = “{ $field }” é calculado a partir dos campos preenchidos e, com estes valores, não tem resultado (uma divisão por zero ou um número grande demais). Altere-os, por favor.
error-file-type = “{ $field }” deve ser um ficheiro PDF, PNG ou JPEG.
error-file-too-big = O ficheiro de “{ $field }” é demasiado grande: no máximo 10 MB.
error-file-unreadable = Não foi possível ler o ficheiro de “{ $field }”. Escolha outro ficheiro PDF, PNG ou JPEG.
error-value-too-long = “{ $field }” pode ter no máximo { $max ->
        [one] { $max } caractere
       *[other] { $max } caracteres
    }.
error-value-character = “{ $field }” contém um caractere que não pode ser inserido no documento ({ $code }). Remova-o.
error-drawing-too-big = O desenho de “{ $field }” é grande demais. Limpe-o e desenhe novamente.
error-drawing-unreadable = Não foi possível ler o desenho de “{ $field }”. Limpe-o e desenhe novamente.
error-drawing-blank = O desenho de “{ $field }” está vazio. Desenhe sua assinatura.
error-unknown-value = O formulário enviou um campo que não cabe a você preencher. Recarregue a página e tente novamente.

## A etapa do código (extensão E2)

code-title-access = Digite seu código de acesso
code-title-email = Digite o código que enviamos por e-mail
code-lead = Olá, { $name }. O remetente pediu para confirmarmos que é você antes de você ver o documento.
code-intro-access = O remetente enviou este código a você separadamente, por exemplo por telefone ou SMS.
code-intro-email = Enviamos um código de 6 dígitos para { $email }. Ele vale por 10 minutos. Verifique sua pasta de spam se ele não tiver chegado.
code-your-email = seu endereço de e-mail
code-label-access = Código de acesso
code-label-email = Código do e-mail
code-attempts-left = { $count ->
        [one] Resta { $count } tentativa
       *[other] Restam { $count } tentativas
    } antes que o link seja bloqueado.
code-continue = Continuar
code-no-email = Não recebeu o e-mail depois de um minuto?
code-send-new = Enviar um novo código
code-sent = Um novo código está a caminho. Somente o código mais recente é válido.
code-wrong = Esse código não está correto. { $count ->
        [one] Resta { $count } tentativa
       *[other] Restam { $count } tentativas
    } antes que o link seja bloqueado.
code-locked = Códigos incorretos demais. O link está bloqueado até { $until }.
code-expired = Este código não é mais válido. Peça um novo código e digite-o em até 10 minutos.
code-too-soon = Um código foi enviado há menos de um minuto. Você poderá pedir um novo em { $seconds ->
        [one] { $seconds } segundo
       *[other] { $seconds } segundos
    }.
code-intro-email-ask = Carregue no botão abaixo e enviaremos um código de 6 dígitos para o seu endereço de e-mail. É válido durante 10 minutos.
code-send-first = Enviar-me um código
code-locked-held = Demasiados códigos errados. O link está bloqueado: peça ao remetente que o desbloqueie.
code-daily-limit = Foram enviados demasiados códigos hoje. Pode pedir um novo às { $until }.
error-code-first-title = Digite seu código primeiro
error-code-first = Abra o link de assinatura e digite seu código para ver o documento.

## A página para posicionar campos (extensão E11)

builder-title = Posicionar campos: { $name }
builder-lead = Arraste tipos de campo para as páginas e depois salve.
builder-palette = Adicionar um campo
builder-palette-hint = Arraste um tipo para uma página, ou escolha-o para adicioná-lo à página visível.
builder-keys-hint = Com Tab chega-se a cada campo. As setas movem o campo selecionado 1 pt, com Shift 10 pt. Delete o remove.
builder-type-signature = Assinatura
builder-type-initials = Iniciais
builder-type-date = Data
builder-type-text = Texto
builder-type-checkbox = Caixa de seleção
builder-type-number = Número
builder-type-radio = Botões de opção
builder-type-select = Lista suspensa
builder-type-attachment = Arquivo
builder-pages = Páginas
builder-document = Documento { $number }: { $name }
builder-page-unavailable = Não foi possível mostrar a imagem desta página.
builder-locked = do documento, não pode ser movido
builder-sender = Remetente (preenchido na criação)
builder-field = Campo selecionado
builder-field-none = Selecione um campo numa página para alterá-lo.
builder-label-type = Tipo
builder-label-role = Papel
builder-label-signer = Signatário
builder-label-key = Chave
builder-label-label = Rótulo mostrado ao signatário
builder-label-required = Obrigatório
builder-label-options = Opções, uma por linha
builder-label-x = Esquerda (pt)
builder-label-y = Topo (pt)
builder-label-width = Largura (pt)
builder-label-height = Altura (pt)
builder-delete = Excluir campo
builder-roles = Papéis
builder-role-numbered = Papel { $number }
builder-add-role = Adicionar papel
builder-signers = Signatários
builder-signer-numbered = Signatário { $number }
builder-signer-name = Nome
builder-signer-email = E-mail
builder-add-signer = Adicionar signatário
builder-save = Salvar
builder-saving = Salvando…
builder-saved = Salvo.
builder-send = Enviar
builder-sending = Enviando…
builder-sent = Enviado: os signatários foram convidados a assinar.
builder-unsaved = Alterações ainda não salvas.
builder-loading = Carregando…
builder-not-saved = Não salvo:
builder-not-sent = Não enviado:
builder-load-failed = Não foi possível carregar:
builder-offline = Não foi possível contactar o servidor. Nada foi perdido: tente novamente.
builder-conflict = Isto foi alterado noutro lugar desde que a página carregou, por isso nada foi salvo. O seu layout continua na tela. Recarregue para obter a versão atual (as suas alterações aqui serão perdidas).
builder-reload = Recarregar
builder-link-expired = Este link expirou. Abra o editor novamente a partir da sua aplicação.
builder-added = { $field } adicionado.
builder-deleted = Campo excluído.
builder-return = Voltar à aplicação
builder-expired-title = Link expirado
builder-expired = Este link expirou. Abra o editor novamente a partir da aplicação de onde veio.
builder-unknown = Abra o editor novamente a partir da aplicação de onde veio.

# Approvers, viewers and in-person signing (extensions E13).
email-approve-subject = Aprovação solicitada: { $document }
email-approve-body = Pedimos que reveja e aprove { $document }.
email-button-approve = Rever e aprovar
email-view-subject = Partilhado consigo: { $document }
email-view-body = { $document } foi partilhado consigo. Basta abri-lo.
email-button-view = Ver o documento
email-host-subject = Assinatura presencial: { $document }
email-host-body = Está a acompanhar a assinatura presencial de { $document } por { $name }. Abra a ligação no dispositivo que lhe vai entregar.
email-button-host = Iniciar a assinatura presencial
page-title-approve = Aprovar { $document }
page-lead-approve = Olá { $name }, reveja o documento e aprove-o ou recuse-o abaixo.
page-your-approval = A sua aprovação
page-consent-approve = Aceito aprovar eletronicamente
page-consent-approve-hint = A minha aprovação fica registada com a hora e este dispositivo, tão vinculativa como uma manuscrita.
page-approve = Aprovar
page-approving = A aprovar…
page-decline-approve-summary = Recusar a aprovação
page-title-view = Ver { $document }
page-lead-view = Olá { $name }, este documento foi partilhado consigo. Basta vê-lo: não há nada para assinar.
page-viewed = Viu este documento. Não precisa de fazer mais nada.
handover-title = Entregue este dispositivo a { $name }
handover-lead = { $host } está a acompanhar a assinatura presencial de { $document }. Entregue este dispositivo a { $name }, que o vai rever e assinar.
handover-continue = Sou { $name }: continuar
state-approved-title = Aprovou
state-approved = Aprovou { $document }.
