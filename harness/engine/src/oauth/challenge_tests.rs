use super::*;

#[test]
fn reads_the_spec_example_of_a_401() {
    let c = BearerChallenge::parse(
        "Bearer resource_metadata=\"https://mcp.example.com/.well-known/oauth-protected-resource\",\n                         scope=\"files:read\"",
    );
    // A folded header arrives with its newline already replaced by the HTTP
    // layer; tabs and spaces around commas are optional whitespace.
    assert!(c.is_err(), "a raw newline is not header whitespace");
    let c = BearerChallenge::parse(
        "Bearer resource_metadata=\"https://mcp.example.com/.well-known/oauth-protected-resource\",   scope=\"files:read\"",
    )
    .expect("parses");
    assert_eq!(
        c.resource_metadata.as_deref(),
        Some("https://mcp.example.com/.well-known/oauth-protected-resource")
    );
    assert_eq!(c.scopes(), ["files:read"]);
    assert_eq!(c.error, None);
}

#[test]
fn reads_an_insufficient_scope_403() {
    let c = BearerChallenge::parse(
        "Bearer error=\"insufficient_scope\", scope=\"files:read files:write\", resource_metadata=\"https://a/x\", error_description=\"needs \\\"write\\\"\"",
    )
    .expect("parses");
    assert_eq!(c.error.as_deref(), Some("insufficient_scope"));
    assert_eq!(c.scopes(), ["files:read", "files:write"]);
    assert_eq!(c.error_description.as_deref(), Some("needs \"write\""));
}

#[test]
fn scheme_and_names_are_case_insensitive_and_tokens_need_no_quotes() {
    let c = BearerChallenge::parse("bEaReR Realm=example, ERROR=invalid_token").expect("parses");
    assert_eq!(c.realm.as_deref(), Some("example"));
    assert_eq!(c.error.as_deref(), Some("invalid_token"));
}

#[test]
fn finds_bearer_among_several_challenges() {
    let all =
        parse_challenges("Basic realm=\"a\", Newauth abc==, Bearer scope=\"x y\"").expect("parses");
    let schemes: Vec<_> = all.iter().map(|c| c.scheme.as_str()).collect();
    assert_eq!(schemes, ["Basic", "Newauth", "Bearer"]);
    assert_eq!(all[1].token68.as_deref(), Some("abc=="));
    assert_eq!(all[2].param("SCOPE"), Some("x y"));
    let b = BearerChallenge::parse("Basic, Bearer").expect("a bare Bearer is a challenge");
    assert_eq!(b, BearerChallenge::default());
}

#[test]
fn rejects_what_it_cannot_read_soundly() {
    assert_eq!(parse_challenges("  ,, "), Err(ChallengeError::Empty));
    assert!(matches!(
        BearerChallenge::parse("Bearer scope=\"unterminated"),
        Err(ChallengeError::Malformed { .. })
    ));
    assert_eq!(
        BearerChallenge::parse("Bearer scope=a, scope=b"),
        Err(ChallengeError::DuplicateParam("scope".into()))
    );
    assert!(matches!(
        BearerChallenge::parse("Bearer scope=\"a\" error=\"b\""),
        Err(ChallengeError::Malformed { .. })
    ));
    assert_eq!(
        BearerChallenge::parse("Basic realm=\"x\""),
        Err(ChallengeError::NoBearer(vec!["Basic".into()]))
    );
    assert!(
        BearerChallenge::parse("Bearer scope=").is_ok(),
        "read as a token68 `scope=`"
    );
}

#[test]
fn formats_and_reads_back() {
    let c = BearerChallenge {
        resource_metadata: Some("https://h/.well-known/oauth-protected-resource/mcp".into()),
        scope: Some("a b".into()),
        error: Some("invalid_token".into()),
        error_description: Some("say \"hi\" \\ bye".into()),
        other: vec![("x-extra".into(), "1".into())],
        ..Default::default()
    };
    let text = c.to_string();
    assert!(
        text.starts_with("Bearer resource_metadata=\"https://h/"),
        "{text}"
    );
    assert_eq!(BearerChallenge::parse(&text), Ok(c));
    assert_eq!(BearerChallenge::default().to_string(), "Bearer");
}
