use super::*;

fn run(src: &str, values: &[(&str, &str)]) -> Result<String, EvalError> {
    let f = Formula::parse(src).unwrap_or_else(|e| panic!("{src}: {e}"));
    let lookup = |k: &str| {
        values
            .iter()
            .find(|(key, _)| *key == k)
            .and_then(|(_, v)| Decimal::parse(v))
    };
    f.eval(&lookup).map(|d| d.to_string())
}

/// A formula, the values it reads, and what it gives.
type Case<'a> = (&'a str, &'a [(&'a str, &'a str)], &'a str);

#[test]
fn arithmetic_is_decimal_and_exact() {
    let cases: &[Case<'_>] = &[
        ("0.1 + 0.2", &[], "0.3"),
        (
            "{qty} * {price}",
            &[("qty", "3"), ("price", "19.99")],
            "59.97",
        ),
        ("{a} - {b}", &[("a", "1"), ("b", "1.50")], "-0.50"),
        ("2.50 * 2", &[], "5.00"),
        ("10 / 4", &[], "2.5"),
        ("10.00 / 4", &[], "2.50"),
        ("9 / 3", &[], "3"),
        ("1 / 3", &[], "0.3333333333"),
        ("2 / 3", &[], "0.6666666667"),
        ("-2 / 3", &[], "-0.6666666667"),
        ("round(2.5, 0)", &[], "3"),
        ("round(-2.5, 0)", &[], "-3"),
        ("round(2.5, 2)", &[], "2.50"),
        ("round({p} * 1.19, 2)", &[("p", "10.05")], "11.96"),
        ("round(1 / 3, 4)", &[], "0.3333"),
        ("-{a}", &[("a", "5")], "-5"),
        ("- -3", &[], "3"),
        ("-0 * 1", &[], "0"),
        ("(1 + 2) * 3", &[], "9"),
        ("1 + 2 * 3", &[], "7"),
        ("8 / 2 / 2", &[], "2"),
        ("8 - 2 - 2", &[], "4"),
        ("{missing} + 1", &[], "1"),
        ("0.00001 * 0.00001", &[], "0.0000000001"),
        ("0.000001 * 0.000001", &[], "0.0000000000"),
        ("0.0000049 * 0.00001", &[], "0.0000000000"),
        ("0.000005 * 0.00001", &[], "0.0000000001"),
        ("{x}", &[("x", "0.123456789012345")], "0.1234567890"),
        ("{x}", &[("x", "0.99999999995")], "1.0000000000"),
        (
            "{big} + 1",
            &[("big", "999999999999999999999999998")],
            "999999999999999999999999999",
        ),
    ];
    for (src, values, want) in cases {
        assert_eq!(run(src, values).as_deref(), Ok(*want), "{src}");
    }
}

#[test]
fn no_value_for_division_by_zero_or_too_large() {
    assert_eq!(run("1 / 0", &[]), Err(EvalError::DivisionByZero));
    assert_eq!(run("1 / {empty}", &[]), Err(EvalError::DivisionByZero));
    assert_eq!(run("1 / (0.5 - 0.50)", &[]), Err(EvalError::DivisionByZero));
    let big = "9".repeat(28);
    assert_eq!(run("{b} * 10", &[("b", &big)]), Err(EvalError::TooLarge));
    assert!(run("{b}", &[("b", &big)]).is_ok());
    // An input of 29 whole digits is too large to read: it counts as empty.
    assert_eq!(
        run("{b} + 1", &[("b", &"9".repeat(29))]).as_deref(),
        Ok("1")
    );
    assert_eq!(
        run("1 / 0.0000000001 * 1000000000000000000", &[]),
        Err(EvalError::TooLarge)
    );
}

#[test]
fn every_result_is_a_number_value() {
    let longest = format!("-{}.5 / 3", "9".repeat(27));
    for src in [
        "1 / 3",
        "-1 / 7 * 99999999999999999",
        "-0.0000000001 / 3",
        &longest,
    ] {
        let v = run(src, &[]).unwrap();
        assert!(
            crate::field::parse_number(&v).is_some(),
            "{src} gave {v}, not a number value"
        );
    }
    assert_eq!(run("-0.0000000001 / 3", &[]).as_deref(), Ok("0.0000000000"));
    assert_eq!(
        run("-0.0000000001 / 2", &[]).as_deref(),
        Ok("-0.0000000001")
    );
}

#[test]
fn parsing_names_the_problem_and_where() {
    let cases: &[(&str, ParseError)] = &[
        (
            "{a} +",
            ParseError::Unexpected {
                found: "the end".into(),
                at: 6,
            },
        ),
        (
            "{a} ^ 2",
            ParseError::Unexpected {
                found: "'^'".into(),
                at: 5,
            },
        ),
        (
            "({a}",
            ParseError::Unexpected {
                found: "the end".into(),
                at: 5,
            },
        ),
        (
            "{a",
            ParseError::Unexpected {
                found: "the end".into(),
                at: 3,
            },
        ),
        ("{}", ParseError::Key { at: 2 }),
        ("1.", ParseError::Number { at: 1 }),
        ("0.12345678901", ParseError::Number { at: 1 }),
        ("round(1, 11)", ParseError::Places { at: 10 }),
        ("round(1, 1.5)", ParseError::Places { at: 10 }),
        (
            "round(1)",
            ParseError::Unexpected {
                found: "')'".into(),
                at: 8,
            },
        ),
        (
            "rounded(1, 2)",
            ParseError::Unexpected {
                found: "'e'".into(),
                at: 6,
            },
        ),
        (
            "1e5",
            ParseError::Unexpected {
                found: "'e'".into(),
                at: 2,
            },
        ),
        (
            "",
            ParseError::Unexpected {
                found: "the end".into(),
                at: 1,
            },
        ),
    ];
    for (src, want) in cases {
        assert_eq!(Formula::parse(src).as_ref(), Err(want), "{src}");
        assert!(!want.to_string().contains("{MAX"), "{want}");
    }
    let deep = format!(
        "{}1{}",
        "(".repeat(MAX_DEPTH + 1),
        ")".repeat(MAX_DEPTH + 1)
    );
    assert_eq!(Formula::parse(&deep), Err(ParseError::TooComplex));
    let ok_deep = format!("{}1{}", "(".repeat(MAX_DEPTH), ")".repeat(MAX_DEPTH));
    assert!(Formula::parse(&ok_deep).is_ok());
    let negs = format!("{}1", "-".repeat(MAX_DEPTH + 1));
    assert_eq!(Formula::parse(&negs), Err(ParseError::TooComplex));
    let many = vec!["1"; MAX_TERMS + 1].join("+");
    assert_eq!(Formula::parse(&many), Err(ParseError::TooComplex));
    assert_eq!(
        Formula::parse(&"1".repeat(MAX_FORMULA_CHARS + 1)),
        Err(ParseError::TooLong)
    );
}

#[test]
fn fields_and_tree() {
    let f = Formula::parse("round({qty} * {unit price} + {qty}, 2) / -2").unwrap();
    assert_eq!(f.fields(), vec!["qty", "unit price"]);
    assert_eq!(
        f.tree(),
        json!([
            "/",
            [
                "round",
                ["+", ["*", ["f", "qty"], ["f", "unit price"]], ["f", "qty"]],
                2
            ],
            ["neg", ["n", "2"]]
        ])
    );
}
