//! The catalogues are complete and consistent; negotiation and locale tags, table-driven.

use std::collections::{BTreeMap, BTreeSet};

use fluent_syntax::ast;

use super::catalog::source;
use super::*;

/// Message -> the variables it uses (`$name`), and the messages it references.
fn messages(lang: Lang) -> BTreeMap<String, (BTreeSet<String>, BTreeSet<String>)> {
    let res = fluent_syntax::parser::parse(source(lang))
        .unwrap_or_else(|(_, e)| panic!("locales/{}.ftl: {e:?}", lang.code()));
    let mut out = BTreeMap::new();
    for entry in res.body {
        match entry {
            ast::Entry::Message(m) => {
                let mut vars = (BTreeSet::new(), BTreeSet::new());
                let value = m
                    .value
                    .unwrap_or_else(|| panic!("{} {}: no value", lang.code(), m.id.name));
                pattern(&value, &mut vars);
                assert!(
                    out.insert(m.id.name.to_string(), vars).is_none(),
                    "{} has {} twice",
                    lang.code(),
                    m.id.name
                );
            }
            ast::Entry::Term(t) => panic!("{}: unexpected term -{}", lang.code(), t.id.name),
            ast::Entry::Junk { content } => panic!("{}: junk {content:?}", lang.code()),
            _ => {}
        }
    }
    out
}

type Refs = (BTreeSet<String>, BTreeSet<String>);

fn pattern(p: &ast::Pattern<&str>, refs: &mut Refs) {
    for e in &p.elements {
        if let ast::PatternElement::Placeable { expression } = e {
            expr(expression, refs);
        }
    }
}

fn expr(e: &ast::Expression<&str>, refs: &mut Refs) {
    match e {
        ast::Expression::Select { selector, variants } => {
            inline(selector, refs);
            for v in variants {
                pattern(&v.value, refs);
            }
        }
        ast::Expression::Inline(i) => inline(i, refs),
    }
}

fn inline(i: &ast::InlineExpression<&str>, refs: &mut Refs) {
    match i {
        ast::InlineExpression::VariableReference { id } => {
            refs.0.insert(id.name.to_string());
        }
        ast::InlineExpression::MessageReference { id, .. } => {
            refs.1.insert(id.name.to_string());
        }
        ast::InlineExpression::FunctionReference { arguments, .. } => {
            for a in &arguments.positional {
                inline(a, refs);
            }
        }
        ast::InlineExpression::Placeable { expression } => expr(expression, refs),
        _ => {}
    }
}

#[test]
fn english_has_exactly_the_keys_the_code_uses() {
    let en = messages(Lang::En);
    let code: BTreeSet<&str> = Msg::ALL.iter().map(|m| m.key()).collect();
    let file: BTreeSet<&str> = en.keys().map(String::as_str).collect();
    assert_eq!(code.len(), Msg::ALL.len(), "two Msg variants share a key");
    let missing: Vec<_> = code.difference(&file).collect();
    let unused: Vec<_> = file.difference(&code).collect();
    assert!(
        missing.is_empty(),
        "Msg keys missing from en.ftl: {missing:?}"
    );
    assert!(unused.is_empty(), "en.ftl keys no Msg names: {unused:?}");
}

#[test]
fn every_catalogue_has_every_key_with_the_same_variables() {
    let en = messages(Lang::En);
    for lang in Lang::ALL {
        let other = messages(lang);
        let missing: Vec<_> = en.keys().filter(|k| !other.contains_key(*k)).collect();
        let extra: Vec<_> = other.keys().filter(|k| !en.contains_key(*k)).collect();
        assert!(missing.is_empty(), "{} lacks {missing:?}", lang.code());
        assert!(extra.is_empty(), "{} has extra keys {extra:?}", lang.code());
        for (key, (vars, msgs)) in &en {
            let (ovars, omsgs) = &other[key];
            assert_eq!(vars, ovars, "{} {key}: variables differ", lang.code());
            for m in omsgs.iter().chain(msgs) {
                assert!(
                    other.contains_key(m),
                    "{} {key} references {m}",
                    lang.code()
                );
            }
        }
    }
}

#[test]
fn every_message_formats_in_every_language_without_errors() {
    // Every variable any message uses, with a value; the formatters assert (in debug builds)
    // that a message resolved without errors.
    let args: Vec<(&str, Arg<'_>)> = vec![
        ("text", Arg::Text("NDA")),
        ("name", Arg::Text("Zoë")),
        ("service", Arg::Text("Envelope")),
        ("until", Arg::Text("2027-03-15 09:30 UTC")),
        ("document", Arg::Text("NDA")),
        ("reason", Arg::Text("wrong")),
        ("file", Arg::Text("nda.pdf")),
        ("files", Arg::Text("nda.pdf, audit.pdf")),
        ("days", Arg::Number(7)),
        ("label", Arg::Text("Signature")),
        ("number", Arg::Number(2)),
        ("page", Arg::Number(3)),
        ("field", Arg::Text("Company")),
        ("detail", Arg::Text("too long")),
        ("max", Arg::Number(200)),
        ("code", Arg::Text("U+674E")),
        ("minutes", Arg::Number(10)),
        ("count", Arg::Number(3)),
        ("seconds", Arg::Number(42)),
        ("email", Arg::Text("z•••@example.com")),
        ("role", Arg::Text("Client")),
        ("host", Arg::Text("Hal")),
    ];
    for lang in Lang::ALL {
        for msg in Msg::ALL {
            let t = text(lang, *msg, &args);
            let h = html(lang, *msg, &args);
            assert!(!t.trim().is_empty(), "{} {}", lang.code(), msg.key());
            for s in [&t, &h] {
                assert!(
                    !s.contains(['\u{2068}', '\u{2069}', '{', '}']),
                    "{} {}: {s:?}",
                    lang.code(),
                    msg.key()
                );
            }
        }
    }
    // Every variable of every message is in `args` above.
    let known: BTreeSet<&str> = args.iter().map(|(n, _)| *n).collect();
    for (key, (vars, _)) in messages(Lang::En) {
        for v in vars {
            assert!(known.contains(v.as_str()), "{key} uses ${v}");
        }
    }
}

#[test]
fn html_escapes_the_catalogue_and_text_arguments_but_not_markup() {
    let evil = "<b>&\"x'</b>";
    let h = html(
        Lang::En,
        Msg::EmailRequestBody,
        &[("document", Arg::Html("<strong>ok</strong>"))],
    );
    assert_eq!(h, "You are asked to sign <strong>ok</strong>.");
    let h = html(Lang::En, Msg::EmailHello, &[("name", Arg::Text(evil))]);
    assert_eq!(h, "Hello &lt;b&gt;&amp;&quot;x&#39;&lt;/b&gt;,");
    let t = text(Lang::En, Msg::EmailHello, &[("name", Arg::Text(evil))]);
    assert_eq!(t, format!("Hello {evil},"));
    // The catalogue's own apostrophes are escaped in HTML.
    let h = html(Lang::Fr, Msg::EmailNothingToDo, &[]);
    assert_eq!(h, "Vous n’avez rien à faire.");
    let h = html(Lang::En, Msg::ErrorDeleted, &[]);
    assert!(h.contains("sender&#39;s data"), "{h}");
}

#[test]
fn plural_forms_follow_each_language() {
    let days = |lang, n: i64| {
        text(
            lang,
            Msg::EmailCopyTooLarge,
            &[("file", Arg::Text("a.pdf")), ("days", Arg::Number(n))],
        )
    };
    assert!(days(Lang::En, 1).ends_with("within 1 day"));
    assert!(days(Lang::En, 7).ends_with("within 7 days"));
    assert!(days(Lang::Pl, 1).ends_with("w ciągu 1 dnia"));
    assert!(days(Lang::Pl, 3).ends_with("w ciągu 3 dni"));
    assert!(days(Lang::Pl, 7).ends_with("w ciągu 7 dni"));
    assert!(days(Lang::De, 7).contains("innerhalb von 7 Tagen"));
    assert!(days(Lang::De, 1).contains("innerhalb von 1 Tag "));
}

#[test]
fn negotiation_table() {
    use Lang::*;
    let cases: &[(&str, Lang)] = &[
        ("de-DE,de;q=0.9,en;q=0.8", De),
        ("pt-BR", Pt),
        ("pt-br,en;q=0.5", Pt),
        ("xx", En),
        ("xx-YY, fr;q=0.1", Fr),
        ("", En),
        ("*", En),
        ("en;q=0.2, nl;q=0.7", Nl),
        ("fr;q=0, de;q=0.5", De),
        ("fr;q=0, fr-CA", En),
        ("pl;q=0.500, it;q=0.5", Pl),
        ("it;q=0.5, pl;q=0.500", It),
        ("ES", Es),
        ("*;q=0.5, de", De),
        ("en;q=0, *", De),
        // Malformed ranges and qualities are skipped.
        ("de;q=2, fr", Fr),
        ("de;q=abc, es", Es),
        ("de;q=0.1234, it", It),
        ("d e, pl", Pl),
        ("123, nl", Nl),
        ("de-, fr", Fr),
        (";;;,,,", En),
        ("de;q=", En),
        ("\u{00e9}s, pt", Pt),
    ];
    for (header, want) in cases {
        assert_eq!(negotiate(header, &Lang::ALL), *want, "{header:?}");
    }
    assert_eq!(negotiate("de", &[Lang::En, Lang::Fr]), En);
    assert_eq!(negotiate("", &[Lang::Fr]), Fr);
}

#[test]
fn negotiation_reads_a_bounded_part_of_a_hostile_header() {
    // Ranges past the byte bound or the range count are never read.
    let filler = "xx;q=0.9,".repeat(200);
    assert_eq!(negotiate(&format!("{filler}de"), &Lang::ALL), Lang::En);
    let many = "xx,".repeat(MAX_LANGUAGE_RANGES);
    assert_eq!(negotiate(&format!("{many}fr"), &Lang::ALL), Lang::En);
    let few = "xx,".repeat(MAX_LANGUAGE_RANGES - 1);
    assert_eq!(negotiate(&format!("{few}fr"), &Lang::ALL), Lang::Fr);
    // A megabyte without a comma, and multi-byte characters at the cut.
    assert_eq!(negotiate(&"é".repeat(600_000), &Lang::ALL), Lang::En);
    let long = format!("de,{}", "é".repeat(600_000));
    assert_eq!(negotiate(&long, &Lang::ALL), Lang::De);
    let long = format!("de,x{}", ",xx".repeat(400));
    assert_eq!(negotiate(&long, &Lang::ALL), Lang::De);
}

#[test]
fn locale_tags_table() {
    let good = [
        "de",
        "pt-BR",
        "fr-CA",
        "DE-at",
        "zh-Hant-TW",
        "de-CH-1996",
        "sl-rozaj-biske",
        "en-US-u-ca-gregory",
        "es-419",
        "zh-yue-HK",
        "en-x-private",
        "xx-YY",
        "tlh",
    ];
    for t in good {
        let l = Locale::parse(t).unwrap_or_else(|_| panic!("{t} is well-formed"));
        assert_eq!(l.as_str(), t, "kept as given");
    }
    let bad = [
        "",
        "d",
        "german!",
        "de_DE",
        "de-",
        "-de",
        "de--AT",
        "de DE",
        " de",
        "x-private",
        "de-x",
        "en-u",
        "123",
        "de-AT-u-",
        "abcdefghi",
        "é",
        "de\n",
    ];
    for t in bad {
        assert!(Locale::parse(t).is_err(), "{t:?} is malformed");
    }
    assert!(Locale::parse(&format!("de-{}", "x-abc".repeat(20))).is_err());
    let lang = |t: &str| Locale::parse(t).unwrap().lang();
    assert_eq!(lang("pt-BR"), Lang::Pt);
    assert_eq!(lang("de-AT"), Lang::De);
    assert_eq!(lang("xx-YY"), Lang::En);
    assert_eq!(lang("PL"), Lang::Pl);
}

#[test]
fn the_page_prefers_the_signers_locale_and_emails_default_to_english() {
    let de = Locale::parse("de").unwrap();
    let xx = Locale::parse("xx-YY").unwrap();
    assert_eq!(Lang::for_page(Some(&de), Some("fr")), Lang::De);
    assert_eq!(Lang::for_page(Some(&xx), Some("fr")), Lang::En);
    assert_eq!(Lang::for_page(None, Some("fr")), Lang::Fr);
    assert_eq!(Lang::for_page(None, None), Lang::En);
    assert_eq!(Lang::for_email(Some(&de)), Lang::De);
    assert_eq!(Lang::for_email(None), Lang::En);
}

#[test]
fn locales_serialize_as_their_tag() {
    let l = Locale::parse("pt-BR").unwrap();
    assert_eq!(serde_json::to_string(&l).unwrap(), "\"pt-BR\"");
    let back: Locale = serde_json::from_str("\"pt-BR\"").unwrap();
    assert_eq!(back, l);
    assert!(serde_json::from_str::<Locale>("\"not a tag\"").is_err());
}
