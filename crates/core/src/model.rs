//! Small value types shared by every module.

/// A closed set of words stored as TEXT: `as_str` for SQL and output, `parse` for input, and
/// `ToSql`/`FromSql` so a row can only hold one of the words (a typo does not compile, an
/// unknown word in the database is an error naming it).
#[macro_export]
macro_rules! text_enum {
    ($(#[$meta:meta])* $vis:vis enum $name:ident { $($(#[$vmeta:meta])* $variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        $vis enum $name { $($(#[$vmeta])* $variant),+ }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }

            pub fn parse(text: &str) -> Option<$name> {
                match text { $($text => Some($name::$variant),)+ _ => None }
            }

            /// The values for which `keep` holds, as an SQL list (`'a', 'b'`): a query takes its
            /// set of words from the enum, never from literals.
            pub fn sql_list(keep: impl Fn($name) -> bool) -> String {
                let words: Vec<String> =
                    $name::ALL.iter().filter(|v| keep(**v)).map(|v| format!("'{}'", v.as_str())).collect();
                words.join(", ")
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.pad(self.as_str())
            }
        }

        impl std::str::FromStr for $name {
            type Err = String;
            fn from_str(text: &str) -> Result<Self, String> {
                $name::parse(text).ok_or_else(|| {
                    let words: Vec<&str> = $name::ALL.iter().map(|v| v.as_str()).collect();
                    format!("unknown {} {text:?} (expected one of: {})", stringify!($name), words.join(", "))
                })
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let text = String::deserialize(d)?;
                text.parse().map_err(serde::de::Error::custom)
            }
        }

        impl rusqlite::types::ToSql for $name {
            fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
                Ok(self.as_str().into())
            }
        }

        impl rusqlite::types::FromSql for $name {
            fn column_result(v: rusqlite::types::ValueRef<'_>) -> rusqlite::types::FromSqlResult<Self> {
                let text = v.as_str()?;
                $name::parse(text).ok_or_else(|| {
                    rusqlite::types::FromSqlError::Other(
                        format!("unknown {} {text:?} in the database", stringify!($name)).into(),
                    )
                })
            }
        }
    };
}

text_enum! {
    /// Whether a turn or a skill invocation achieved its goal.
    pub enum Outcome { Success = "success", Failure = "failure" }
}

/// One step of a tool sequence: a tool and the shape of its input (keys and JSON value types,
/// never values).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ToolStep {
    pub name: String,
    pub input_shape: String,
}
