//! UCI options: their declarations (printed on `uci`) and validated values.

#[derive(Clone, Debug)]
pub enum Kind {
    Spin { default: i64, min: i64, max: i64 },
    Check { default: bool },
    Button,
    Text { default: &'static str },
}

pub struct OptionDecl {
    pub name: &'static str,
    pub kind: Kind,
}

pub const OPTIONS: &[OptionDecl] = &[
    OptionDecl {
        name: "Hash",
        kind: Kind::Spin {
            default: 16,
            min: 1,
            max: 16384,
        },
    },
    OptionDecl {
        name: "Clear Hash",
        kind: Kind::Button,
    },
    OptionDecl {
        name: "Threads",
        kind: Kind::Spin {
            default: 1,
            min: 1,
            max: 256,
        },
    },
    OptionDecl {
        name: "Move Overhead",
        kind: Kind::Spin {
            default: 30,
            min: 0,
            max: 5000,
        },
    },
    OptionDecl {
        name: "MultiPV",
        kind: Kind::Spin {
            default: 1,
            min: 1,
            max: 256,
        },
    },
    OptionDecl {
        name: "Ponder",
        kind: Kind::Check { default: false },
    },
    OptionDecl {
        name: "UCI_Chess960",
        kind: Kind::Check { default: false },
    },
    OptionDecl {
        name: "UCI_ShowWDL",
        kind: Kind::Check { default: false },
    },
    OptionDecl {
        name: "SyzygyPath",
        kind: Kind::Text { default: "<empty>" },
    },
    OptionDecl {
        name: "EvalFile",
        kind: Kind::Text {
            default: "<default>",
        },
    },
    OptionDecl {
        name: "OwnBook",
        kind: Kind::Check { default: true },
    },
    OptionDecl {
        name: "BookFile",
        kind: Kind::Text { default: "<empty>" },
    },
    OptionDecl {
        name: "BookDepth",
        kind: Kind::Spin {
            default: 20,
            min: 0,
            max: 400,
        },
    },
    OptionDecl {
        name: "BookTemperature",
        kind: Kind::Text { default: "0.75" },
    },
];

impl OptionDecl {
    pub fn uci_line(&self) -> String {
        match &self.kind {
            Kind::Spin { default, min, max } => {
                format!(
                    "option name {} type spin default {default} min {min} max {max}",
                    self.name
                )
            }
            Kind::Check { default } => {
                format!("option name {} type check default {default}", self.name)
            }
            Kind::Button => format!("option name {} type button", self.name),
            Kind::Text { default } => {
                format!("option name {} type string default {default}", self.name)
            }
        }
    }
}

/// A parsed option value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Int(i64),
    Bool(bool),
    Text(String),
    Pressed,
}

/// Finds the declaration (names are case-insensitive in UCI) and validates the value.
pub fn parse(name: &str, value: Option<&str>) -> Result<(&'static OptionDecl, Value), String> {
    let decl = OPTIONS
        .iter()
        .find(|o| o.name.eq_ignore_ascii_case(name))
        .ok_or_else(|| format!("unknown option '{name}'"))?;
    let value = match (&decl.kind, value.map(str::trim)) {
        (Kind::Button, _) => Value::Pressed,
        (Kind::Spin { min, max, .. }, Some(v)) => {
            let n: i64 = v
                .parse()
                .map_err(|_| format!("option '{}' needs an integer, got '{v}'", decl.name))?;
            if n < *min || n > *max {
                return Err(format!(
                    "option '{}' must be in {min}..={max}, got {n}",
                    decl.name
                ));
            }
            Value::Int(n)
        }
        (Kind::Check { .. }, Some(v)) => match v.to_ascii_lowercase().as_str() {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            _ => {
                return Err(format!(
                    "option '{}' needs true or false, got '{v}'",
                    decl.name
                ))
            }
        },
        (Kind::Text { .. }, Some(v)) => Value::Text(v.to_string()),
        (Kind::Text { .. }, None) => Value::Text(String::new()),
        (_, None) => return Err(format!("option '{}' needs a value", decl.name)),
    };
    Ok((decl, value))
}
