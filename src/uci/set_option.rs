//! `setoption`: applies a validated option value to the engine, dispatched on the
//! option's [`OptionId`].

use super::options::{self, OptionId};
use super::{error, info_string, Engine, Level};
use crate::book::Book;
use crate::search::strength::FULL_STRENGTH_ELO;
use crate::search::SearchMode;

/// `PolicyFile`'s value for the hand-written MCTS prior.
const HAND_WRITTEN_PRIOR: &str = "<hand>";

/// The book's sampling temperature from the `BookTemperature` spin.
pub(super) fn book_temperature(hundredths: i64) -> f64 {
    hundredths as f64 / options::BOOK_TEMPERATURE_UNITS_PER_ONE
}

impl Engine {
    pub(super) fn set_option(&mut self, name: &str, value: Option<&str>) {
        // A tuning build's search parameters: options of their own, outside `OPTIONS`.
        #[cfg(feature = "tune")]
        if let Some(result) = crate::search::params::set_tunable(name, value.unwrap_or("")) {
            if let Err(e) = result {
                error(&e);
            }
            return;
        }
        let (decl, value) = match options::parse(name, value) {
            Ok(v) => v,
            Err(e) => return error(&e),
        };
        match decl.id {
            OptionId::Hash => {
                let mb = value.int() as usize;
                match self.searcher().resize_hash(mb) {
                    Ok(()) => self.hash_mb = mb,
                    Err(e) => error(&format!("{e}; keeping the {} MB table", self.hash_mb)),
                }
            }
            OptionId::ClearHash => self.searcher().clear(),
            OptionId::Threads => {
                self.settings.threads = value.int() as usize;
                self.searcher().set_threads(value.int() as usize);
            }
            OptionId::MoveOverhead => self.settings.move_overhead = value.int() as u64,
            OptionId::MultiPv => self.settings.multipv = value.int() as usize,
            OptionId::Chess960 => self.settings.chess960 = value.bool(),
            OptionId::ShowWdl => self.settings.show_wdl = value.bool(),
            OptionId::Ponder => {} // the GUI decides when to ponder; nothing to configure
            OptionId::SyzygyPath => self.load_tablebases(value.text()),
            OptionId::LimitStrength => {
                self.settings.limit_strength = value.bool();
                self.announce_strength();
            }
            OptionId::Elo => {
                self.settings.elo = value.int() as i32;
                if self.settings.limit_strength {
                    self.announce_strength();
                }
            }
            OptionId::SkillLevel => {
                self.settings.skill_level = value.int() as i32;
                if !self.settings.limit_strength {
                    self.announce_strength();
                }
            }
            OptionId::HumanTiming => self.settings.human_timing = value.bool(),
            OptionId::ShowHumanMoves => {
                self.settings.show_human_moves = value.bool();
                if value.bool() {
                    // Parse the embedded prior now, not on the first `go`'s clock.
                    crate::policy::default_prior();
                }
            }
            OptionId::HumanModelRating => {
                self.settings.human_model_rating = value.int() as u16;
                self.announce_strength();
            }
            OptionId::HumanTemperature => {
                self.settings.human_temperature = value.int() as u16;
                self.announce_strength();
            }
            OptionId::HumanGuard => {
                self.settings.human_guard = value.int() as u16;
                self.announce_strength();
            }
            OptionId::HumanGuardDepth => {
                self.settings.human_guard_depth = value.int() as u16;
                self.announce_strength();
            }
            OptionId::Seed => {
                self.settings.seed = value.int() as u64;
                self.new_game_seed();
            }
            OptionId::SyzygyProbeDepth => self.settings.tablebases.probe_depth = value.int() as i32,
            OptionId::SyzygyProbeLimit => self.settings.tablebases.probe_limit = value.int() as u32,
            OptionId::Syzygy50MoveRule => self.settings.tablebases.rule50 = value.bool(),
            OptionId::EvalFile => {
                self.finish_search(true);
                match crate::eval::load_eval_file(value.text()) {
                    Ok(description) => info_string(&format!("loaded net {description}")),
                    Err(e) => error(&format!(
                        "{e}; keeping net {}",
                        crate::eval::net_description()
                    )),
                }
            }
            OptionId::OwnBook => self.settings.own_book = value.bool(),
            OptionId::BookDepth => self.settings.book_depth = value.int() as usize,
            OptionId::BookTemperature => {
                self.settings.book_temperature = book_temperature(value.int())
            }
            OptionId::BookFile => self.load_book(value.text()),
            OptionId::SearchMode => {
                let mode = SearchMode::from_name(value.text()).expect("parse checked the name");
                if let Err(e) = self.searcher().set_mode(mode) {
                    error(&format!(
                        "{e}; keeping SearchMode {}",
                        self.searcher().mode().name()
                    ));
                }
            }
            OptionId::PolicyFile => self.load_policy(value.text()),
        }
    }

    /// `PolicyFile`: a policy net's file, the embedded net (`<default>`, or empty) or the
    /// hand-written prior (`<hand>`).
    fn load_policy(&mut self, path: &str) {
        if path.is_empty() || path == options::text_default(OptionId::PolicyFile) {
            self.searcher()
                .set_mcts_policy(Some(crate::policy::default_policy()));
            info_string(&format!(
                "MCTS prior: embedded policy net {}",
                crate::policy::DEFAULT_POLICY_NAME
            ));
            return;
        }
        if path == HAND_WRITTEN_PRIOR {
            self.searcher().set_mcts_policy(None);
            info_string("MCTS prior: hand-written");
            return;
        }
        match crate::policy::PolicyNet::load(std::path::Path::new(path)) {
            Ok(net) => {
                let shape = net.shape;
                self.searcher()
                    .set_mcts_policy(Some(std::sync::Arc::new(net)));
                info_string(&format!(
                    "MCTS prior: policy net {path} ({}x{})",
                    shape.hidden, shape.d
                ));
            }
            Err(e) => error(&format!("{e}; keeping the previous MCTS prior")),
        }
    }

    fn load_tablebases(&mut self, path: &str) {
        self.finish_search(true);
        match crate::tablebase::load(path) {
            Ok((0, _)) => info_string("no tablebases loaded"),
            Ok((largest, files)) => info_string(&format!(
                "loaded Syzygy tables from {path}: {files} files, up to {largest} pieces"
            )),
            Err(e) => error(&format!(
                "{e}; keeping {}",
                crate::tablebase::loaded_path()
                    .map_or("no tables".to_string(), |p| format!("the tables in {p}"))
            )),
        }
    }

    fn load_book(&mut self, path: &str) {
        if path.is_empty() || path == options::text_default(OptionId::BookFile) {
            self.custom_book = None;
            info_string("using the embedded book");
            return;
        }
        match Book::load_file(path) {
            Ok(book) => {
                info_string(&format!(
                    "loaded book {path}: {} entries, {} positions",
                    book.len(),
                    book.positions()
                ));
                self.custom_book = Some(book);
            }
            Err(e) => error(&format!("{e}; keeping the previous book")),
        }
    }

    /// Says what level is in force after a strength option changes.
    fn announce_strength(&self) {
        match self.settings.level() {
            Level::Human(h) => info_string(&format!(
                "playing at about {} Elo: moves drawn from the human model at rating {}, \
                 temperature {:.2}{}",
                h.elo,
                h.model_rating,
                h.temperature,
                h.guard.map_or(String::new(), |g| format!(
                    ", guard {:.2} at depth {}",
                    g.max_loss, g.depth
                ))
            )),
            Level::Limited(s) => info_string(&format!(
                "playing at about {} Elo: {} nodes per move, choosing among {} moves \
                 (level curve setting {})",
                s.elo,
                s.nodes(),
                s.candidates(),
                s.setting
            )),
            Level::Full if self.settings.limit_strength => info_string(&format!(
                "{} {} is at or above Rookery's full strength (~{FULL_STRENGTH_ELO}): \
                 playing at full strength",
                options::decl(OptionId::Elo).name,
                self.settings.elo
            )),
            Level::Full => info_string("playing at full strength"),
        }
    }
}
