//! [`ApiKey`]: a secret that cannot leak by accident. Its `Debug` and `Display`
//! print `***`; the only way to the text is [`ApiKey::expose`], called where the
//! header is built.

/// An API key or token.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key.
    pub fn new(key: impl Into<String>) -> ApiKey {
        ApiKey(key.into())
    }

    /// The key itself, for the one place that sends it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ApiKey(***)")
    }
}

impl std::fmt::Display for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("***")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_never_prints() {
        let key = ApiKey::new("sk-secret-123");
        assert!(!format!("{key:?} {key}").contains("secret"));
        assert_eq!(key.expose(), "sk-secret-123");
    }
}
