use super::*;

fn env(pairs: &[(&str, &str)]) -> PathEnv {
    let get = |name: &str| pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| OsString::from(v));
    PathEnv {
        xdg_config_home: get(XDG_CONFIG_HOME_ENV),
        home: get(HOME_ENV),
        socket_path: get(SOCKET_PATH_ENV),
        session: get(SESSION_ENV),
        client_socket_path: get(CLIENT_SOCKET_PATH_ENV),
    }
}

#[test]
fn config_dir_prefers_xdg_then_home() {
    assert_eq!(config_dir(Some(Path::new("/x")), Some(Path::new("/h"))), Ok(PathBuf::from("/x/herdr")));
    assert_eq!(config_dir(None, Some(Path::new("/h"))), Ok(PathBuf::from("/h/.config/herdr")));
    assert_eq!(
        config_dir(Some(Path::new("")), Some(Path::new("/h"))),
        Ok(PathBuf::from("/h/.config/herdr")),
        "an empty XDG_CONFIG_HOME counts as unset"
    );
    assert_eq!(config_dir(None, None), Err(PathError::NoConfigHome));
}

#[test]
fn session_names_follow_upstream_rules() {
    assert_eq!(SessionName::parse("default"), Ok(None));
    assert_eq!(SessionName::parse("work-1.a_b").map(|s| s.map(|n| n.0)), Ok(Some("work-1.a_b".into())));
    assert_eq!(SessionName::parse(""), Err(PathError::EmptySessionName));
    assert_eq!(SessionName::parse("."), Err(PathError::DotSessionName));
    assert_eq!(SessionName::parse(".."), Err(PathError::DotSessionName));
    assert_eq!(SessionName::parse("a/b"), Err(PathError::SessionNameCharacters));
    assert_eq!(SessionName::parse("é"), Err(PathError::SessionNameCharacters));
    assert!(SessionName::parse(&"a".repeat(64)).is_ok());
    assert_eq!(SessionName::parse(&"a".repeat(65)), Err(PathError::SessionNameTooLong));
}

#[test]
fn default_session_lives_in_the_config_dir() {
    let paths = resolve(None, &env(&[("HOME", "/h")])).expect("resolves");
    assert_eq!(paths.session, None);
    assert_eq!(paths.source, SocketSource::Default);
    assert_eq!(paths.data_dir, PathBuf::from("/h/.config/herdr"));
    assert_eq!(paths.api_socket, PathBuf::from("/h/.config/herdr/herdr.sock"));
    assert_eq!(paths.client_socket, PathBuf::from("/h/.config/herdr/herdr-client.sock"));
}

#[test]
fn named_session_lives_under_sessions() {
    let paths = resolve(Some("work"), &env(&[("XDG_CONFIG_HOME", "/x")])).expect("resolves");
    assert_eq!(paths.session.as_ref().map(SessionName::as_str), Some("work"));
    assert_eq!(paths.data_dir, PathBuf::from("/x/herdr/sessions/work"));
    assert_eq!(paths.api_socket, PathBuf::from("/x/herdr/sessions/work/herdr.sock"));
    assert_eq!(paths.client_socket, PathBuf::from("/x/herdr/sessions/work/herdr-client.sock"));
}

#[test]
fn explicit_session_beats_socket_path_and_session_env() {
    let e = env(&[("HOME", "/h"), ("HERDR_SOCKET_PATH", "/s/api.sock"), ("HERDR_SESSION", "other")]);
    let paths = resolve(Some("mine"), &e).expect("resolves");
    assert_eq!(paths.source, SocketSource::ExplicitSession);
    assert_eq!(paths.api_socket, PathBuf::from("/h/.config/herdr/sessions/mine/herdr.sock"));

    let paths = resolve(Some("default"), &e).expect("resolves");
    assert_eq!(paths.source, SocketSource::ExplicitSession);
    assert_eq!(paths.session, None);
    assert_eq!(paths.api_socket, PathBuf::from("/h/.config/herdr/herdr.sock"));
}

#[test]
fn socket_path_env_beats_session_env_and_derives_the_client_socket() {
    let e = env(&[
        ("HOME", "/h"),
        ("HERDR_SOCKET_PATH", "/s/api.sock"),
        ("HERDR_SESSION", "other"),
        ("HERDR_CLIENT_SOCKET_PATH", "/legacy/client.sock"),
    ]);
    let paths = resolve(None, &e).expect("resolves");
    assert_eq!(paths.source, SocketSource::SocketPathEnv);
    assert_eq!(paths.api_socket, PathBuf::from("/s/api.sock"));
    assert_eq!(paths.client_socket, PathBuf::from("/s/api-client.sock"));
    assert_eq!(paths.session.as_ref().map(SessionName::as_str), Some("other"));
    assert_eq!(paths.data_dir, PathBuf::from("/h/.config/herdr/sessions/other"));
}

#[test]
fn socket_path_env_ignores_an_invalid_session_env() {
    let e = env(&[("HOME", "/h"), ("HERDR_SOCKET_PATH", "/s/api.sock"), ("HERDR_SESSION", "../x")]);
    let paths = resolve(None, &e).expect("an override does not need a valid session name");
    assert_eq!(paths.session, None);
    assert_eq!(paths.data_dir, PathBuf::from("/h/.config/herdr"));
}

#[test]
fn session_env_beats_default_and_is_validated() {
    let paths = resolve(None, &env(&[("HOME", "/h"), ("HERDR_SESSION", "s1")])).expect("resolves");
    assert_eq!(paths.source, SocketSource::SessionEnv);
    assert_eq!(paths.api_socket, PathBuf::from("/h/.config/herdr/sessions/s1/herdr.sock"));

    let paths = resolve(None, &env(&[("HOME", "/h"), ("HERDR_SESSION", "default")])).expect("resolves");
    assert_eq!(paths.session, None);
    assert_eq!(paths.api_socket, PathBuf::from("/h/.config/herdr/herdr.sock"));

    assert_eq!(
        resolve(None, &env(&[("HOME", "/h"), ("HERDR_SESSION", "a b")])),
        Err(PathError::SessionNameCharacters)
    );
}

#[test]
fn explicit_invalid_session_is_an_error() {
    assert_eq!(resolve(Some(".."), &env(&[("HOME", "/h")])), Err(PathError::DotSessionName));
}

#[test]
fn legacy_client_socket_applies_only_without_an_api_override() {
    let e = env(&[("HOME", "/h"), ("HERDR_CLIENT_SOCKET_PATH", "/legacy/client.sock")]);
    let paths = resolve(None, &e).expect("resolves");
    assert_eq!(paths.api_socket, PathBuf::from("/h/.config/herdr/herdr.sock"));
    assert_eq!(paths.client_socket, PathBuf::from("/legacy/client.sock"));

    let paths = resolve(Some("s"), &e).expect("resolves");
    assert_eq!(paths.client_socket, PathBuf::from("/h/.config/herdr/sessions/s/herdr-client.sock"));
}

#[test]
fn empty_env_values_count_as_unset() {
    let e = env(&[("HOME", "/h"), ("HERDR_SOCKET_PATH", ""), ("HERDR_SESSION", "")]);
    let paths = resolve(None, &e).expect("resolves");
    assert_eq!(paths.source, SocketSource::Default);
}

#[test]
fn client_socket_derivation() {
    assert_eq!(derive_client_socket(Path::new("/t/herdr.sock")), PathBuf::from("/t/herdr-client.sock"));
    assert_eq!(derive_client_socket(Path::new("/t/custom-api")), PathBuf::from("/t/custom-api-client.sock"));
    assert_eq!(derive_client_socket(Path::new("rel.sock")), PathBuf::from("rel-client.sock"));
}

#[test]
fn missing_home_is_reported() {
    assert_eq!(resolve(None, &PathEnv::default()), Err(PathError::NoConfigHome));
}

#[test]
fn runtime_dir_sits_beside_the_api_socket() {
    assert_eq!(runtime_dir(Path::new("/t/herdr.sock")), PathBuf::from("/t/herdr-run"));
    assert_eq!(runtime_dir(Path::new("/t/other.sock")), PathBuf::from("/t/other-run"));
    assert_eq!(runtime_dir(Path::new("/t/custom-api")), PathBuf::from("/t/custom-api-run"));
}
