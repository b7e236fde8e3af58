# Polski. Te same klucze i zmienne co w en.ftl; nazw marek i produktów ({ $service }) nie tłumaczymy.

## Elementy wspólne

quoted = „{ $text }”
required = (wymagane)
optional = (opcjonalne)

## Wiadomości e-mail do podpisujących

email-hello = Dzień dobry { $name },
email-footer = Wysłano za pośrednictwem { $service }.
email-button-sign = Przejrzyj i podpisz
email-open-link = Otwórz ten link, aby przejrzeć i podpisać dokument:
email-fallback-link = Jeśli przycisk nie działa, skopiuj ten link do przeglądarki:
email-link-until = Link jest ważny do { $until }.
email-request-subject = Prośba o podpis: { $document }
email-request-body = Prosimy o podpisanie dokumentu { $document }.
email-reminder-subject = Przypomnienie: podpisz { $document }
email-reminder-body = Przypominamy, że dokument { $document } czeka na Twój podpis.
email-voided-subject = Unieważniono: { $document }
email-voided-body = Dokument { $document } został unieważniony i nie można go już podpisać.
email-reason = Powód: { $reason }
email-nothing-to-do = Nie musisz nic robić.
email-completed-subject = Ukończono: { $document }
email-completed-body = Wszyscy podpisali dokument { $document }.
email-completed-attached = Podpisana kopia jest w załączniku ({ $file }).
email-completed-not-attached = Nie udało się załączyć podpisanej kopii do tej wiadomości (plik może być zbyt duży); poproś nadawcę o kopię.
email-copy-body = Otrzymujesz kopię dokumentu { $document }: wszyscy go podpisali.
email-copy-attached = Załączniki: { $files }.
email-copy-too-large = Plik { $file } jest zbyt duży, aby go załączyć; pobierz go w ciągu { $days ->
        [one] { $days } dnia
        [few] { $days } dni
        [many] { $days } dni
       *[other] { $days } dnia
    }
email-copy-download = Pobierz { $file }
email-code-subject = Twój kod do podpisania: { $document }
email-code-body = Twój kod do otwarcia dokumentu { $document } to:
email-code-use = Wpisz go na stronie podpisu. Jest ważny przez { $minutes ->
        [one] { $minutes } minutę
        [few] { $minutes } minuty
        [many] { $minutes } minut
       *[other] { $minutes } minuty
    } i działa jeden raz.
email-code-ignore = Jeśli nie otwierałeś linku do podpisu, zignoruj tę wiadomość: bez kodu nikt nie zobaczy dokumentu.

## Strona podpisywania

page-skip = Przejdź do treści
page-title-sign = Podpisz: { $document }
page-lead = Dzień dobry { $name }, przejrzyj dokument i podpisz go poniżej.
page-sender-message = Wiadomość od nadawcy
page-document = Dokument
page-document-frame = Dokument do podpisania: { $document }
page-open-document = Otwórz dokument w nowej karcie
page-picture = Strona { $page } z { $count }: { $document }
page-for-role = Dla: { $role }
page-next-field = Następne pole
page-spot-sign = Podpisz tutaj
page-done = Gotowe
page-fields-done = Wszystkie wymagane pola są wypełnione. Sprawdź, wyraź zgodę i podpisz poniżej.
page-your-fields = Twoje pola
page-label-signature = Podpis
page-label-initials = Inicjały
page-label-date = Data
page-label-reason = Powód
page-label-numbered = { $label } { $number }
page-on-page = Na stronie { $page } dokumentu.
page-mode-type = Wpisz
page-mode-draw = Narysuj
page-type-signature = Wpisz swoje imię i nazwisko jako podpis
page-type-initials = Wpisz swoje inicjały
page-draw-hint = Narysuj podpis myszą, palcem lub rysikiem. Wolisz klawiaturę? Wybierz „Wpisz”.
page-drawing-area = { $field }: pole do rysowania
page-clear-drawing = Wyczyść rysunek
page-date-hint = Wypełniane automatycznie datą złożenia podpisu.
page-choose-option = Wybierz opcję
page-number-hint = Liczba, na przykład 12 lub -3.50.
page-computed-hint = Obliczane na podstawie pozostałych pól; zmienia się w miarę ich wypełniania.
page-attachment-hint = Plik PDF, PNG lub JPEG o rozmiarze najwyżej 10 MB.
page-attachment-camera = Albo zrób zdjęcie
page-signature-page-hint = Umieszczany na stronie podpisów dodanej na końcu dokumentu.
page-consent = Zgadzam się na podpisanie elektroniczne
page-consent-hint = Mój podpis elektroniczny na tym dokumencie jest tak samo wiążący jak podpis własnoręczny.
page-sign = Podpisz
page-signing = Podpisywanie…
page-draw-required = Narysuj podpis lub wybierz „Wpisz”.
page-decline-summary = Odmów podpisania
page-decline-reason = Powód, widoczny dla nadawcy
page-decline-hint = Odmowa anuluje kopertę dla wszystkich. Tej czynności nie można cofnąć.
page-decline = Odmów

## Stan linku do podpisu

state-thanks = Dziękujemy za podpisanie
state-signed-title = Dokument został podpisany
state-signed = Podpisano dokument { $document }.
state-others-email = Pozostałe osoby muszą jeszcze podpisać. Gdy wszyscy podpiszą, otrzymasz podpisany dokument e-mailem.
state-others-sender = Pozostałe osoby muszą jeszcze podpisać. Nadawca poinformuje Cię, gdy wszyscy podpiszą.
state-completed-title = Wszyscy podpisali
state-completed = Wszyscy podpisali dokument { $document }.
state-completed-email = Kopia podpisanego dokumentu zostanie wysłana do Ciebie e-mailem.
state-completed-sender = Podpisany dokument jest u nadawcy.
state-wait-title = To jeszcze nie Twoja kolej
state-wait = Ktoś inny musi podpisać dokument { $document } przed Tobą.
state-wait-email = Wyślemy Ci e-mail, gdy nadejdzie Twoja kolej.
state-wait-sender = Wróć do tego linku, gdy nadawca poinformuje Cię, że nadeszła Twoja kolej.
state-declined-title = Odmówiono podpisania
state-declined = Odmówiono podpisania dokumentu { $document }.
state-declined-note = Nadawca został powiadomiony, a koperta została anulowana dla wszystkich.
state-voided-title = Ta koperta została anulowana
state-voided = Nadawca anulował dokument { $document }. Nie ma nic do podpisania.
state-voided-reason = Podany powód:
state-expired-title = Ten link wygasł
state-expired = Termin na podpisanie dokumentu { $document } upłynął.
state-expired-note = Jeśli nadal musisz podpisać, poproś nadawcę o nowy link.

## Błędy na stronie podpisywania i odrzucone wartości

error-unknown-title = Nieprawidłowy link
error-unknown-heading = Ten link jest nieprawidłowy
error-unknown = Sprawdź, czy otwarto cały link z wiadomości e-mail, lub poproś nadawcę o nowy.
error-rate-title = Zbyt wiele żądań
error-rate = Odczekaj minutę, a następnie odśwież stronę.
error-method-title = Niedostępne
error-method = Tego adresu nie można użyć w ten sposób.
error-form-title = Nie przyjęto
error-form = Nie udało się odczytać formularza. Wróć, odśwież stronę i spróbuj ponownie.
error-deleted-title = Dokument usunięty
error-deleted = Ten dokument został usunięty zgodnie z zasadami przechowywania danych nadawcy. Poproś nadawcę o kopię.
error-busy-title = Usługa zajęta
error-busy = Obecnie przetwarzanych jest wiele dokumentów i niczego nie zmieniono. Spróbuj ponownie za chwilę.
error-slow-title = Przekroczono czas
error-slow = Formularz docierał zbyt długo. Sprawdź połączenie i spróbuj ponownie.
error-generic-title = Coś poszło nie tak
error-generic = Spróbuj ponownie za chwilę. Jeśli problem będzie się powtarzał, skontaktuj się z nadawcą.
error-refused-title = Formularz nie został przyjęty
error-refused = Formularz nie pochodzi z tej strony podpisywania lub strona jest nieaktualna. Otwórz ponownie link z wiadomości e-mail i spróbuj jeszcze raz.
error-consent = Zaznacz „{ page-consent }”, aby podpisać.
error-missing = Wypełnij pole „{ $field }”.
error-invalid = Wartość pola „{ $field }” nie została przyjęta. Sprawdź ją i spróbuj ponownie.
error-invalid-detail = Wartość pola „{ $field }” nie została przyjęta: { $detail }.
error-value-empty = Pole „{ $field }” nie może być puste.
error-value-not-option = Pole „{ $field }” musi mieć jedną z pokazanych wartości.
error-value-not-number = Pole „{ $field }” musi zawierać liczbę, na przykład 12 lub -3.50.
error-formula-no-value = Pole „{ $field }” jest obliczane z wypełnionych pól i przy tych wartościach nie ma wyniku (dzielenie przez zero lub zbyt duża liczba). Zmień je.
error-file-type = Pole „{ $field }” musi zawierać plik PDF, PNG lub JPEG.
error-file-too-big = Plik w polu „{ $field }” jest za duży: najwyżej 10 MB.
error-file-unreadable = Nie udało się odczytać pliku w polu „{ $field }”. Wybierz inny plik PDF, PNG lub JPEG.
error-value-too-long = Pole „{ $field }” może mieć najwyżej { $max ->
        [one] { $max } znak
        [few] { $max } znaki
        [many] { $max } znaków
       *[other] { $max } znaku
    }.
error-value-character = Pole „{ $field }” zawiera znak, którego nie można umieścić w dokumencie ({ $code }). Usuń go.
error-drawing-too-big = Rysunek w polu „{ $field }” jest zbyt duży. Wyczyść go i narysuj ponownie.
error-drawing-unreadable = Nie udało się odczytać rysunku w polu „{ $field }”. Wyczyść go i narysuj ponownie.
error-drawing-blank = Rysunek w polu „{ $field }” jest pusty. Narysuj swój podpis.
error-unknown-value = Formularz zawierał pole, którego nie wypełniasz. Odśwież stronę i spróbuj ponownie.

## Krok z kodem (rozszerzenie E2)

code-title-access = Wpisz kod dostępu
code-title-email = Wpisz kod, który wysłaliśmy e-mailem
code-lead = Dzień dobry, { $name }. Nadawca prosi o potwierdzenie tożsamości, zanim zobaczysz dokument.
code-intro-access = Nadawca przekazał Ci ten kod osobno, na przykład telefonicznie lub SMS-em.
code-intro-email = Wysłaliśmy 6-cyfrowy kod na adres { $email }. Jest ważny przez 10 minut. Jeśli nie dotarł, sprawdź folder ze spamem.
code-your-email = Twój adres e-mail
code-label-access = Kod dostępu
code-label-email = Kod z wiadomości e-mail
code-attempts-left = { $count ->
        [one] Pozostała { $count } próba
        [few] Pozostały { $count } próby
        [many] Pozostało { $count } prób
       *[other] Pozostało { $count } próby
    }, zanim link zostanie zablokowany.
code-continue = Dalej
code-no-email = Nie dostałeś wiadomości po minucie?
code-send-new = Wyślij nowy kod
code-sent = Nowy kod jest w drodze. Ważny jest tylko najnowszy kod.
code-wrong = Ten kod jest nieprawidłowy. { $count ->
        [one] Pozostała { $count } próba
        [few] Pozostały { $count } próby
        [many] Pozostało { $count } prób
       *[other] Pozostało { $count } próby
    }, zanim link zostanie zablokowany.
code-locked = Zbyt wiele błędnych kodów. Link jest zablokowany do { $until }.
code-expired = Ten kod jest już nieważny. Poproś o nowy kod i wpisz go w ciągu 10 minut.
code-too-soon = Kod został wysłany mniej niż minutę temu. O nowy możesz poprosić za { $seconds ->
        [one] { $seconds } sekundę
        [few] { $seconds } sekundy
        [many] { $seconds } sekund
       *[other] { $seconds } sekundy
    }.
code-intro-email-ask = Naciśnij przycisk poniżej, a wyślemy 6-cyfrowy kod na Twój adres e-mail. Jest ważny przez 10 minut.
code-send-first = Wyślij mi kod
code-locked-held = Zbyt wiele błędnych kodów. Link jest zablokowany: poproś nadawcę o odblokowanie.
code-daily-limit = Dzisiaj wysłano zbyt wiele kodów. Nowy możesz poprosić o { $until }.
error-code-first-title = Najpierw wpisz kod
error-code-first = Otwórz link do podpisu i wpisz kod, aby zobaczyć dokument.

## Strona rozmieszczania pól (rozszerzenie E11)

builder-title = Rozmieść pola: { $name }
builder-lead = Przeciągnij typy pól na strony, a potem zapisz.
builder-palette = Dodaj pole
builder-palette-hint = Przeciągnij typ na stronę albo wybierz go, aby dodać go do widocznej strony.
builder-keys-hint = Klawisz Tab prowadzi do każdego pola. Strzałki przesuwają zaznaczone pole o 1 pt, z Shift o 10 pt. Delete je usuwa.
builder-type-signature = Podpis
builder-type-initials = Inicjały
builder-type-date = Data
builder-type-text = Tekst
builder-type-checkbox = Pole wyboru
builder-type-number = Liczba
builder-type-radio = Przyciski opcji
builder-type-select = Lista rozwijana
builder-type-attachment = Plik
builder-pages = Strony
builder-document = Dokument { $number }: { $name }
builder-page-unavailable = Nie udało się pokazać obrazu tej strony.
builder-locked = z dokumentu, nie można przesunąć
builder-sender = Nadawca (wypełnia przy tworzeniu)
builder-field = Zaznaczone pole
builder-field-none = Zaznacz pole na stronie, aby je zmienić.
builder-label-type = Typ
builder-label-role = Rola
builder-label-signer = Podpisujący
builder-label-key = Klucz
builder-label-label = Etykieta widoczna dla podpisującego
builder-label-required = Wymagane
builder-label-options = Opcje, jedna w wierszu
builder-label-x = Od lewej (pt)
builder-label-y = Od góry (pt)
builder-label-width = Szerokość (pt)
builder-label-height = Wysokość (pt)
builder-delete = Usuń pole
builder-roles = Role
builder-role-numbered = Rola { $number }
builder-add-role = Dodaj rolę
builder-signers = Podpisujący
builder-signer-numbered = Podpisujący { $number }
builder-signer-name = Imię i nazwisko
builder-signer-email = E-mail
builder-add-signer = Dodaj podpisującego
builder-save = Zapisz
builder-saving = Zapisywanie…
builder-saved = Zapisano.
builder-send = Wyślij
builder-sending = Wysyłanie…
builder-sent = Wysłano: podpisujący zostali poproszeni o podpis.
builder-unsaved = Zmiany nie są jeszcze zapisane.
builder-loading = Wczytywanie…
builder-not-saved = Nie zapisano:
builder-not-sent = Nie wysłano:
builder-load-failed = Nie udało się wczytać:
builder-offline = Nie udało się połączyć z serwerem. Nic nie zostało utracone: spróbuj ponownie.
builder-conflict = Od wczytania strony zmieniono to w innym miejscu, więc nic nie zostało zapisane. Twój układ jest nadal na ekranie. Wczytaj ponownie, aby zobaczyć aktualną wersję (zmiany wprowadzone tutaj zostaną utracone).
builder-reload = Wczytaj ponownie
builder-link-expired = Ten link wygasł. Otwórz edytor ponownie w swojej aplikacji.
builder-added = Dodano: { $field }.
builder-deleted = Usunięto pole.
builder-return = Wróć do aplikacji
builder-expired-title = Link wygasł
builder-expired = Ten link wygasł. Otwórz edytor ponownie z poziomu aplikacji, z której korzystasz.
builder-unknown = Otwórz edytor ponownie z poziomu aplikacji, z której korzystasz.

# Approvers, viewers and in-person signing (extensions E13).
email-approve-subject = Prośba o zatwierdzenie: { $document }
email-approve-body = Prosimy o przejrzenie i zatwierdzenie dokumentu { $document }.
email-button-approve = Przejrzyj i zatwierdź
email-view-subject = Udostępniono Ci: { $document }
email-view-body = Udostępniono Ci dokument { $document }. Wystarczy go otworzyć.
email-button-view = Zobacz dokument
email-host-subject = Podpis osobisty: { $document }
email-host-body = Prowadzisz osobiste podpisanie dokumentu { $document } przez: { $name }. Otwórz link na urządzeniu, które przekażesz tej osobie.
email-button-host = Rozpocznij podpisywanie osobiste
page-title-approve = Zatwierdź: { $document }
page-lead-approve = Dzień dobry { $name }, przejrzyj dokument, a następnie zatwierdź go lub odrzuć poniżej.
page-your-approval = Twoje zatwierdzenie
page-consent-approve = Zgadzam się na zatwierdzenie elektroniczne
page-consent-approve-hint = Moje zatwierdzenie jest zapisywane z czasem i tym urządzeniem i jest tak samo wiążące jak własnoręczne.
page-approve = Zatwierdź
page-approving = Zatwierdzanie…
page-decline-approve-summary = Odmów zatwierdzenia
page-title-view = Zobacz: { $document }
page-lead-view = Dzień dobry { $name }, udostępniono Ci ten dokument. Wystarczy go obejrzeć: nie trzeba niczego podpisywać.
page-viewed = Dokument został obejrzany. Nic więcej nie jest potrzebne.
handover-title = Przekaż to urządzenie osobie: { $name }
handover-lead = { $host } prowadzi osobiste podpisanie dokumentu { $document }. Przekaż to urządzenie osobie: { $name }, która go przejrzy i podpisze.
handover-continue = Jestem { $name }: dalej
state-approved-title = Zatwierdzono
state-approved = Zatwierdzono dokument { $document }.
