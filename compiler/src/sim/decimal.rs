//! Exact decimals: a 128-bit mantissa at a fixed scale.
//!
//! `decimal(38,s)` holds up to 38 digits, which neither `f64` nor the
//! 28-digit decimal crates can; products and quotients of two 38-digit
//! operands need 256 bits on the way, so a small wide helper does those.
//! Rounding is half away from zero (Flink's `HALF_UP`).

use std::cmp::Ordering;
use std::fmt;

/// The largest precision a decimal column can declare.
pub const MAX_PRECISION: u8 = 38;

const fn pow10_table() -> [u128; 39] {
    let mut t = [1u128; 39];
    let mut i = 1;
    while i < 39 {
        t[i] = t[i - 1] * 10;
        i += 1;
    }
    t
}

/// `POW10[n]` = 10^n for n ≤ 38.
pub const POW10: [u128; 39] = pow10_table();

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Decimal {
    pub mantissa: i128,
    pub scale: u8,
}

/// Why a result does not fit its declared type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecimalError {
    /// More than `precision` digits.
    Overflow,
    DivisionByZero,
}

/// Why text is not a decimal of the wanted scale.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParseError {
    NotANumber,
    /// Non-zero digits below the scale (`1.005` at scale 2).
    TooPrecise,
    /// More than 38 digits.
    TooLarge,
}

impl Decimal {
    pub fn new(mantissa: i128, scale: u8) -> Decimal {
        Decimal { mantissa, scale }
    }

    pub fn from_int(i: i64) -> Decimal {
        Decimal { mantissa: i as i128, scale: 0 }
    }

    /// Number of digits in the mantissa (0 has one).
    pub fn digits(self) -> u32 {
        let m = self.mantissa.unsigned_abs();
        POW10.iter().position(|&p| m < p).unwrap_or(39).max(1) as u32
    }

    /// True when the value fits `decimal(precision, self.scale)`.
    pub fn fits(self, precision: u8) -> bool {
        (precision as usize) < POW10.len() && self.mantissa.unsigned_abs() < POW10[precision as usize]
    }

    /// The value at another scale, rounded half away from zero when the
    /// scale shrinks; `None` when it no longer fits 38 digits.
    pub fn rescale(self, scale: u8) -> Option<Decimal> {
        if scale >= self.scale {
            let f = *POW10.get((scale - self.scale) as usize)? as i128;
            let m = self.mantissa.checked_mul(f)?;
            (m.unsigned_abs() < POW10[38]).then_some(Decimal { mantissa: m, scale })
        } else {
            let d = POW10.get((self.scale - scale) as usize).copied();
            let m = match d {
                Some(d) => round_div(self.mantissa.unsigned_abs(), d),
                None => 0,
            };
            Some(Decimal { mantissa: apply_sign(m, self.mantissa < 0)?, scale })
        }
    }

    /// Parses `[+-]digits[.digits][e[+-]digits]` exactly at `scale`.
    pub fn parse(text: &str, scale: u8) -> Result<Decimal, ParseError> {
        let (neg, digits, exp) = split_number(text).ok_or(ParseError::NotANumber)?;
        // value = digits × 10^exp; at `scale` the mantissa is digits × 10^(exp+scale).
        let shift = exp + scale as i64;
        let digits = digits.trim_start_matches('0');
        let m: u128 = if shift >= 0 {
            if digits.is_empty() {
                0
            } else {
                if digits.len() as i64 + shift > 38 {
                    return Err(ParseError::TooLarge);
                }
                let base: u128 = digits.parse().map_err(|_| ParseError::TooLarge)?;
                base * POW10[shift as usize]
            }
        } else {
            let cut = (-shift) as usize;
            let keep = digits.len().saturating_sub(cut);
            let (head, tail) = digits.split_at(keep);
            if tail.bytes().any(|b| b != b'0') {
                return Err(ParseError::TooPrecise);
            }
            if head.len() > 38 {
                return Err(ParseError::TooLarge);
            }
            if head.is_empty() {
                0
            } else {
                head.parse().map_err(|_| ParseError::TooLarge)?
            }
        };
        if m >= POW10[38] {
            return Err(ParseError::TooLarge);
        }
        Ok(Decimal { mantissa: if neg { -(m as i128) } else { m as i128 }, scale })
    }

    /// Compares by value, whatever the scales.
    pub fn cmp_value(self, other: Decimal) -> Ordering {
        if self.scale == other.scale {
            return self.mantissa.cmp(&other.mantissa);
        }
        let s = self.scale.max(other.scale);
        match (self.rescale(s), other.rescale(s)) {
            (Some(a), Some(b)) => a.mantissa.cmp(&b.mantissa),
            // One side needs more than 38 digits at the common scale: compare
            // the integer parts first, then the rest as f64 (never equal then).
            _ => self.to_f64().total_cmp(&other.to_f64()),
        }
    }

    pub fn to_f64(self) -> f64 {
        let m = self.mantissa;
        if m.unsigned_abs() < (1u128 << 53) && self.scale <= 22 {
            // Both exact in f64, so one division rounds correctly.
            m as f64 / 10f64.powi(self.scale as i32)
        } else {
            self.to_plain_string().parse().unwrap_or(f64::NAN)
        }
    }

    /// The exact value of a finite float at `scale`, rounded half away from zero.
    pub fn from_f64(f: f64, scale: u8) -> Option<Decimal> {
        if !f.is_finite() {
            return None;
        }
        // `{:e}` is the shortest text that reads back as `f`.
        let text = format!("{f:e}");
        let (neg, digits, exp) = split_number(&text)?;
        let wide = Decimal::parse(&format!("{}{}e{}", if neg { "-" } else { "" }, digits, exp), 38.min(scale + 18));
        match wide {
            Ok(d) => d.rescale(scale),
            Err(ParseError::TooPrecise) => {
                // Far more fraction digits than any scale: round from the text.
                let d = Decimal::parse(&format!("{}{}e{}", if neg { "-" } else { "" }, &digits[..digits.len().min(30)], exp + digits.len().saturating_sub(30) as i64), 38).ok()?;
                d.rescale(scale)
            }
            Err(_) => None,
        }
    }

    /// Normalised: no trailing fraction zeros (`10.50` → `10.5`, `10.00` → `10`).
    pub fn to_plain_string(self) -> String {
        let mut s = self.to_scaled_string();
        if s.contains('.') {
            while s.ends_with('0') {
                s.pop();
            }
            if s.ends_with('.') {
                s.pop();
            }
        }
        if s == "-0" {
            s = "0".into();
        }
        s
    }

    /// All `scale` fraction digits (`10.50`): Flink's CAST to STRING.
    pub fn to_scaled_string(self) -> String {
        let m = self.mantissa.unsigned_abs();
        let sign = if self.mantissa < 0 { "-" } else { "" };
        if self.scale == 0 {
            return format!("{sign}{m}");
        }
        let digits = format!("{:0>width$}", m, width = self.scale as usize + 1);
        let (int, frac) = digits.split_at(digits.len() - self.scale as usize);
        format!("{sign}{int}.{frac}")
    }

    pub fn is_zero(self) -> bool {
        self.mantissa == 0
    }

    /// `self + other` at `scale`, or an overflow of `precision`.
    pub fn add(self, other: Decimal, precision: u8, scale: u8) -> Result<Decimal, DecimalError> {
        let s = self.scale.max(other.scale);
        let a = self.rescale(s).ok_or(DecimalError::Overflow)?;
        let b = other.rescale(s).ok_or(DecimalError::Overflow)?;
        let m = a.mantissa.checked_add(b.mantissa).ok_or(DecimalError::Overflow)?;
        finish(Decimal { mantissa: m, scale: s }, precision, scale)
    }

    pub fn sub(self, other: Decimal, precision: u8, scale: u8) -> Result<Decimal, DecimalError> {
        self.add(Decimal { mantissa: -other.mantissa, scale: other.scale }, precision, scale)
    }

    pub fn mul(self, other: Decimal, precision: u8, scale: u8) -> Result<Decimal, DecimalError> {
        let exact_scale = self.scale as u32 + other.scale as u32;
        let neg = (self.mantissa < 0) != (other.mantissa < 0);
        let wide = U256::mul(self.mantissa.unsigned_abs(), other.mantissa.unsigned_abs());
        // Bring the exact product (at scale s1+s2) to the target scale.
        let m = if exact_scale >= scale as u32 {
            wide.div_pow10_round(exact_scale - scale as u32)
        } else {
            wide.mul_pow10(scale as u32 - exact_scale).and_then(U256::to_u128)
        }
        .ok_or(DecimalError::Overflow)?;
        finish(Decimal { mantissa: apply_sign(m, neg).ok_or(DecimalError::Overflow)?, scale }, precision, scale)
    }

    pub fn div(self, other: Decimal, precision: u8, scale: u8) -> Result<Decimal, DecimalError> {
        if other.mantissa == 0 {
            return Err(DecimalError::DivisionByZero);
        }
        let neg = (self.mantissa < 0) != (other.mantissa < 0);
        // a/b at scale t: (ma × 10^(t + sb − sa)) / mb.
        let k = scale as i64 + other.scale as i64 - self.scale as i64;
        let (num, den) = if k >= 0 {
            (U256::from(self.mantissa.unsigned_abs()).mul_pow10(k as u32), Some(other.mantissa.unsigned_abs()))
        } else {
            let den = (other.mantissa.unsigned_abs() as u128).checked_mul(*POW10.get((-k) as usize).unwrap_or(&0));
            (Some(U256::from(self.mantissa.unsigned_abs())), den)
        };
        let (Some(num), Some(den)) = (num, den) else {
            // The numerator overflows 256 bits or the denominator exceeds every
            // 38-digit value: either the result is far too large or rounds to 0.
            return if k >= 0 { Err(DecimalError::Overflow) } else { Ok(Decimal { mantissa: 0, scale }) };
        };
        if den == 0 {
            return Ok(Decimal { mantissa: 0, scale });
        }
        let (q, r) = num.divrem(den);
        let mut q = q.to_u128().ok_or(DecimalError::Overflow)?;
        if r >= den - r {
            q = q.checked_add(1).ok_or(DecimalError::Overflow)?;
        }
        finish(Decimal { mantissa: apply_sign(q, neg).ok_or(DecimalError::Overflow)?, scale }, precision, scale)
    }
}

impl fmt::Display for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_plain_string())
    }
}

fn finish(d: Decimal, precision: u8, scale: u8) -> Result<Decimal, DecimalError> {
    let d = d.rescale(scale).ok_or(DecimalError::Overflow)?;
    if d.fits(precision) {
        Ok(d)
    } else {
        Err(DecimalError::Overflow)
    }
}

fn apply_sign(m: u128, neg: bool) -> Option<i128> {
    let m: i128 = m.try_into().ok()?;
    Some(if neg { -m } else { m })
}

/// `n / d` rounded half away from zero (n, d unsigned).
fn round_div(n: u128, d: u128) -> u128 {
    let (q, r) = (n / d, n % d);
    if r >= d - r {
        q + 1
    } else {
        q
    }
}

/// Splits number text into (negative, significant digits, exponent) such
/// that value = digits × 10^exponent.
fn split_number(text: &str) -> Option<(bool, String, i64)> {
    let (neg, rest) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let (mant, exp) = match rest.find(['e', 'E']) {
        Some(i) => {
            let e = &rest[i + 1..];
            let digits = e.strip_prefix(['+', '-']).unwrap_or(e);
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) || digits.len() > 6 {
                return None;
            }
            (&rest[..i], e.parse::<i64>().ok()?)
        }
        None => (rest, 0),
    };
    let (int, frac) = match mant.split_once('.') {
        Some((i, f)) => (i, f),
        None => (mant, ""),
    };
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    if !int.bytes().all(|b| b.is_ascii_digit()) || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut digits = String::with_capacity(int.len() + frac.len());
    digits.push_str(int);
    digits.push_str(frac);
    Some((neg, digits, exp - frac.len() as i64))
}

/// Just enough of a 256-bit unsigned integer for decimal products and
/// quotients: four 64-bit limbs, least significant first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct U256([u64; 4]);

impl From<u128> for U256 {
    fn from(v: u128) -> U256 {
        U256([v as u64, (v >> 64) as u64, 0, 0])
    }
}

impl U256 {
    fn mul(a: u128, b: u128) -> U256 {
        U256::from(a).mul_u128(b).expect("a 128×128-bit product fits 256 bits")
    }

    fn mul_u128(self, b: u128) -> Option<U256> {
        let bl = [b as u64, (b >> 64) as u64];
        let mut out = [0u64; 5];
        for (i, &a) in self.0.iter().enumerate() {
            let mut carry: u128 = 0;
            for (j, &bj) in bl.iter().enumerate() {
                if i + j >= 5 {
                    continue;
                }
                let t = a as u128 * bj as u128 + out[i + j] as u128 + carry;
                out[i + j] = t as u64;
                carry = t >> 64;
            }
            let mut k = i + 2;
            while carry != 0 {
                if k >= 5 {
                    return None;
                }
                let t = out[k] as u128 + carry;
                out[k] = t as u64;
                carry = t >> 64;
                k += 1;
            }
        }
        (out[4] == 0).then_some(U256([out[0], out[1], out[2], out[3]]))
    }

    fn mul_pow10(self, mut k: u32) -> Option<U256> {
        let mut v = self;
        while k > 0 {
            let step = k.min(38);
            v = v.mul_u128(POW10[step as usize])?;
            k -= step;
        }
        Some(v)
    }

    /// Divides by 10^k, rounding half away from zero; `None` when the
    /// quotient does not fit 128 bits. Cutting in steps is exact for
    /// half-up: digits below the last step never move a remainder across
    /// the half.
    fn div_pow10_round(self, mut k: u32) -> Option<u128> {
        let mut v = self;
        while k > 38 {
            v = v.divrem(POW10[38]).0;
            k -= 38;
        }
        if k == 0 {
            return v.to_u128();
        }
        let d = POW10[k as usize];
        let (q, r) = v.divrem(d);
        let q = q.to_u128()?;
        Some(if r != 0 && r >= d - r { q + 1 } else { q })
    }

    fn to_u128(self) -> Option<u128> {
        (self.0[2] == 0 && self.0[3] == 0).then_some(self.0[0] as u128 | (self.0[1] as u128) << 64)
    }

    /// Quotient and remainder by a non-zero 128-bit divisor.
    fn divrem(self, d: u128) -> (U256, u128) {
        if let Some(n) = self.to_u128() {
            return (U256::from(n / d), n % d);
        }
        let mut q = [0u64; 4];
        let mut r: u128 = 0;
        for bit in (0..256).rev() {
            let top = r >> 127;
            r = (r << 1) | ((self.0[bit / 64] >> (bit % 64)) & 1) as u128;
            if top == 1 || r >= d {
                r = r.wrapping_sub(d);
                q[bit / 64] |= 1 << (bit % 64);
            }
        }
        (U256(q), r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str, scale: u8) -> Decimal {
        Decimal::parse(s, scale).unwrap()
    }

    #[test]
    fn parses_exactly() {
        assert_eq!(d("10.50", 2).to_plain_string(), "10.5");
        assert_eq!(d("1e2", 2).to_plain_string(), "100");
        assert_eq!(d("-0.50", 2).to_plain_string(), "-0.5");
        assert_eq!(d("10.750", 2).mantissa, 1075);
        assert_eq!(Decimal::parse("1.005", 2), Err(ParseError::TooPrecise));
        assert_eq!(Decimal::parse("abc", 2), Err(ParseError::NotANumber));
        assert_eq!(Decimal::parse("1e", 2), Err(ParseError::NotANumber));
        let big = "12345678901234567890123456789.123456789";
        assert_eq!(d(big, 9).to_plain_string(), big);
        assert_eq!(Decimal::parse("1e38", 0), Err(ParseError::TooLarge));
    }

    #[test]
    fn arithmetic_at_the_plan_scale() {
        // decimal(10,2) / int64 → decimal(14,6)
        assert_eq!(d("10.01", 2).div(Decimal::from_int(3), 14, 6).unwrap().to_plain_string(), "3.336667");
        assert_eq!(d("-10.01", 2).div(Decimal::from_int(3), 14, 6).unwrap().to_plain_string(), "-3.336667");
        assert_eq!(d("0.05", 2).mul(d("0.05", 2), 21, 4).unwrap().to_plain_string(), "0.0025");
        assert_eq!(d("1", 2).div(Decimal::from_int(0), 14, 6), Err(DecimalError::DivisionByZero));
        // Two 38-digit operands: the product needs 256 bits on the way.
        let a = d("99999999999999999999.999999999", 9);
        let p = a.mul(d("0.000000001", 9), 38, 18).unwrap();
        assert_eq!(p.to_plain_string(), "99999999999.999999999999999999");
        assert_eq!(a.mul(a, 38, 18), Err(DecimalError::Overflow));
        let max = d("99999999999999999999999999999.999999999", 9);
        assert_eq!(max.add(d("0.000000001", 9), 38, 9), Err(DecimalError::Overflow));
        assert_eq!(d("1", 0).div(d("3", 0), 38, 20).unwrap().to_plain_string(), "0.33333333333333333333");
        assert_eq!(d("2", 0).div(d("3", 0), 38, 2).unwrap().to_plain_string(), "0.67");
        assert_eq!(d("0.005", 3).rescale(2).unwrap().to_plain_string(), "0.01");
        assert_eq!(d("-0.005", 3).rescale(2).unwrap().to_plain_string(), "-0.01");
    }

    #[test]
    fn wide_rounding() {
        let a = d("12345678901234567890.123456789", 9);
        let b = d("98765432109876543210.987654321", 9);
        let p = a.mul(b, 38, 0).unwrap_err();
        assert_eq!(p, DecimalError::Overflow);
        let x = d("1234567890.123456789", 9).mul(d("1234567890.123456789", 9), 38, 18).unwrap();
        assert_eq!(x.to_plain_string(), "1524157875323883675.019051998750190521");
    }

    #[test]
    fn floats_convert_from_their_shortest_text() {
        assert_eq!(Decimal::from_f64(0.1, 2).unwrap().to_plain_string(), "0.1");
        assert_eq!(Decimal::from_f64(2.675, 2).unwrap().to_plain_string(), "2.68");
        assert_eq!(d("10.015", 3).to_f64(), 10.015);
    }
}
