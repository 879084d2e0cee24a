//! Simple arithmetic questions computed, never guessed ([`super::Technique::Arithmetic`]):
//! «Сколько будет семь умножить на восемь?», "What's a hundred divided by four?" — two
//! numbers (digits, or number words up to the thousands) and one operation, with nothing
//! else in the request but question words.

use crate::intent::Operation as Op;
use crate::messages::{Lang, Texts};

/// An arithmetic question: `left op right`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Question {
    /// The first number.
    pub left: f64,
    /// The operation.
    pub op: Op,
    /// The second number.
    pub right: f64,
}

impl Question {
    /// The answer; `None` for a division by zero.
    pub fn answer(&self) -> Option<f64> {
        match self.op {
            Op::Add => Some(self.left + self.right),
            Op::Subtract => Some(self.left - self.right),
            Op::Multiply => Some(self.left * self.right),
            Op::Divide => (self.right != 0.0).then(|| self.left / self.right),
        }
    }
}

/// The arithmetic question `text` asks, if it asks one and nothing else.
pub fn arithmetic_question(text: &str) -> Option<Question> {
    let tokens = tokens(text);
    let mut numbers: Vec<f64> = Vec::new();
    let mut ops: Vec<Op> = Vec::new();
    let mut current: Option<Number> = None;
    let mut asked = text.contains('?');
    let flush = |current: &mut Option<Number>, numbers: &mut Vec<f64>| {
        if let Some(n) = current.take() {
            numbers.push(n.value());
        }
    };
    for t in &tokens {
        let t = t.as_str();
        if let Some(value) = number_word(t) {
            let n = current.get_or_insert_with(Number::default);
            n.add(value);
            continue;
        }
        if let Ok(value) = t.replace(',', ".").parse::<f64>() {
            flush(&mut current, &mut numbers);
            numbers.push(value);
            continue;
        }
        if let Some(op) = operator(t) {
            flush(&mut current, &mut numbers);
            ops.push(op);
            continue;
        }
        if QUESTION_WORDS.contains(&t) {
            asked = true;
            continue;
        }
        if FILLER.contains(&t) {
            continue;
        }
        return None;
    }
    flush(&mut current, &mut numbers);
    match (numbers.as_slice(), ops.as_slice()) {
        ([left, right], [op]) if asked => Some(Question {
            left: *left,
            op: *op,
            right: *right,
        }),
        _ => None,
    }
}

/// How `question` and its answer are said in `lang` ([`Texts::arithmetic_answer`]): the
/// numbers in digits.
pub fn say(lang: Lang, question: &Question) -> String {
    let (l, r) = (number(lang, question.left), number(lang, question.right));
    let answer = question.answer().map(|a| number(lang, a));
    Texts::new(lang).arithmetic_answer(&l, question.op, &r, answer.as_deref())
}

/// A number as said: whole numbers without a fraction, else at most two decimals (a comma
/// in Russian).
fn number(lang: Lang, value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        return format!("{}", value as i64);
    }
    let text = format!("{value:.2}");
    let text = text.trim_end_matches('0').trim_end_matches('.').to_string();
    match lang {
        Lang::Ru => text.replace('.', ","),
        Lang::En => text,
    }
}

/// A number said in words: hundreds, tens and units add up; a thousand multiplies.
#[derive(Debug, Default)]
struct Number {
    total: f64,
    part: f64,
}

impl Number {
    fn add(&mut self, value: f64) {
        if value == 1000.0 {
            self.total += self.part.max(1.0) * 1000.0;
            self.part = 0.0;
        } else if value == 100.0 && self.part > 0.0 && self.part < 10.0 {
            // "four hundred"
            self.part *= 100.0;
        } else {
            self.part += value;
        }
    }

    fn value(&self) -> f64 {
        self.total + self.part
    }
}

/// The request's words, lower case, with `+ − × ÷ * / x` as words of their own.
fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    for c in text.to_lowercase().chars() {
        if c.is_alphanumeric()
            || c == '\''
            || c == '’'
            || ((c == '.' || c == ',')
                && word.chars().all(|d| d.is_ascii_digit())
                && !word.is_empty())
        {
            word.push(if c == '’' { '\'' } else { c });
        } else {
            if !word.is_empty() {
                out.push(
                    std::mem::take(&mut word)
                        .trim_end_matches(['.', ','])
                        .to_string(),
                );
            }
            if matches!(c, '+' | '-' | '−' | '*' | '×' | '/' | '÷' | '=') {
                out.push(c.to_string());
            }
        }
    }
    if !word.is_empty() {
        out.push(word.trim_end_matches(['.', ',']).to_string());
    }
    out
}

fn operator(word: &str) -> Option<Op> {
    Some(match word {
        "+" | "плюс" | "прибавить" | "plus" | "add" => Op::Add,
        "-" | "−" | "минус" | "отнять" | "вычесть" | "minus" | "subtract" => {
            Op::Subtract
        }
        "*" | "×" | "x" | "умножить" | "умноженное" | "помножить" | "times" | "multiplied" => {
            Op::Multiply
        }
        "/" | "÷" | "разделить" | "делить" | "поделить" | "деленное" | "делённое" | "divided"
        | "over" => Op::Divide,
        _ => return None,
    })
}

/// Words that make the request a question.
const QUESTION_WORDS: &[&str] = &[
    "сколько",
    "посчитай",
    "вычисли",
    "подсчитай",
    "what",
    "what's",
    "whats",
    "how",
    "calculate",
    "compute",
];

/// Words an arithmetic question may hold besides its numbers and operation.
const FILLER: &[&str] = &[
    "а",
    "и",
    "будет",
    "это",
    "равно",
    "скажи",
    "мне",
    "пожалуйста",
    "на",
    "к",
    "из",
    "от",
    "ну",
    "тогда",
    "is",
    "much",
    "by",
    "and",
    "then",
    "equals",
    "the",
    "of",
    "from",
    "to",
    "please",
    "me",
    "tell",
    "s",
    "=",
    "a",
];

/// The value of a number word.
pub(super) fn number_word(word: &str) -> Option<f64> {
    const WORDS: &[(&str, f64)] = &[
        ("ноль", 0.0),
        ("один", 1.0),
        ("одна", 1.0),
        ("два", 2.0),
        ("две", 2.0),
        ("три", 3.0),
        ("четыре", 4.0),
        ("пять", 5.0),
        ("шесть", 6.0),
        ("семь", 7.0),
        ("восемь", 8.0),
        ("девять", 9.0),
        ("десять", 10.0),
        ("одиннадцать", 11.0),
        ("двенадцать", 12.0),
        ("тринадцать", 13.0),
        ("четырнадцать", 14.0),
        ("пятнадцать", 15.0),
        ("шестнадцать", 16.0),
        ("семнадцать", 17.0),
        ("восемнадцать", 18.0),
        ("девятнадцать", 19.0),
        ("двадцать", 20.0),
        ("тридцать", 30.0),
        ("сорок", 40.0),
        ("пятьдесят", 50.0),
        ("шестьдесят", 60.0),
        ("семьдесят", 70.0),
        ("восемьдесят", 80.0),
        ("девяносто", 90.0),
        ("сто", 100.0),
        ("двести", 200.0),
        ("триста", 300.0),
        ("четыреста", 400.0),
        ("пятьсот", 500.0),
        ("шестьсот", 600.0),
        ("семьсот", 700.0),
        ("восемьсот", 800.0),
        ("девятьсот", 900.0),
        ("тысяча", 1000.0),
        ("тысячу", 1000.0),
        ("тысячи", 1000.0),
        ("тысяч", 1000.0),
        ("zero", 0.0),
        ("one", 1.0),
        ("two", 2.0),
        ("three", 3.0),
        ("four", 4.0),
        ("five", 5.0),
        ("six", 6.0),
        ("seven", 7.0),
        ("eight", 8.0),
        ("nine", 9.0),
        ("ten", 10.0),
        ("eleven", 11.0),
        ("twelve", 12.0),
        ("thirteen", 13.0),
        ("fourteen", 14.0),
        ("fifteen", 15.0),
        ("sixteen", 16.0),
        ("seventeen", 17.0),
        ("eighteen", 18.0),
        ("nineteen", 19.0),
        ("twenty", 20.0),
        ("thirty", 30.0),
        ("forty", 40.0),
        ("fifty", 50.0),
        ("sixty", 60.0),
        ("seventy", 70.0),
        ("eighty", 80.0),
        ("ninety", 90.0),
        ("hundred", 100.0),
        ("thousand", 1000.0),
    ];
    WORDS.iter().find(|(w, _)| *w == word).map(|(_, v)| *v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asked(text: &str) -> Option<(f64, Op, f64)> {
        arithmetic_question(text).map(|q| (q.left, q.op, q.right))
    }

    #[test]
    fn questions_in_words_and_digits() {
        assert_eq!(
            asked("Сколько будет пять плюс три?"),
            Some((5.0, Op::Add, 3.0))
        );
        assert_eq!(
            asked("Двадцать пять умножить на четыре?"),
            Some((25.0, Op::Multiply, 4.0))
        );
        assert_eq!(asked("what's 12 * 7"), Some((12.0, Op::Multiply, 7.0)));
        assert_eq!(
            asked("How much is three hundred minus 45?"),
            Some((300.0, Op::Subtract, 45.0))
        );
        assert_eq!(asked("Посчитай 2,5 + 1,5"), Some((2.5, Op::Add, 1.5)));
        assert_eq!(
            asked("Calculate two thousand divided by 8"),
            Some((2000.0, Op::Divide, 8.0))
        );
    }

    #[test]
    fn anything_else_is_no_arithmetic() {
        assert_eq!(asked("Запиши: два плюс два"), None);
        assert_eq!(asked("Сколько сейчас времени?"), None);
        assert_eq!(asked("Сколько будет стоить билет за пять плюс три?"), None);
        assert_eq!(asked("Удали заметку номер три"), None);
        assert_eq!(asked("пять плюс три"), None, "not asked");
        assert_eq!(asked("Сколько будет два плюс три плюс четыре?"), None);
    }

    #[test]
    fn answers_are_said_with_their_question() {
        let q = arithmetic_question("What's a hundred divided by eight?").unwrap();
        assert_eq!(say(Lang::En, &q), "100 divided by 8 is 12.5.");
        let q = arithmetic_question("Сто разделить на восемь?").unwrap();
        assert_eq!(say(Lang::Ru, &q), "100 разделить на 8 будет 12,5.");
        let q = arithmetic_question("Семь разделить на ноль?").unwrap();
        assert_eq!(say(Lang::Ru, &q), "На ноль делить нельзя.");
    }
}
