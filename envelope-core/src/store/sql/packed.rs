//! Stored events, packed: the event's JSON without the `null` members of its objects, deflated
//! with a preset dictionary. Events are written once and read rarely (the events API, webhook
//! deliveries), and each holds the whole envelope view of its moment, so they were the largest
//! table per envelope (docs/STORAGE.md, "Bytes per envelope"): about 990 bytes of JSON each,
//! about 200 packed.
//!
//! The format is one byte naming it, the CRC-32 of the JSON (4 bytes, little-endian), then raw
//! deflate (RFC 1951) primed with [`DICTIONARY_1`]. Raw deflate has no check of its own, and a
//! changed bit in it can inflate to other valid JSON; the CRC makes such a row corrupt rather
//! than a quietly different event (events are the audit record).
//! A format, and its dictionary, never change once written: a better dictionary is format 2,
//! and readers keep reading 1. This module must never read anything but its own output, so a
//! packed value that does not inflate, or inflates past [`MAX_UNPACKED`], is a corrupt row.

use flate2::{Compress, Compression, Decompress, FlushCompress, FlushDecompress, Status};

use crate::model::EventRecord;
use crate::store::{StoreError, StoreResult};

/// The first byte of a packed value: CRC-32, then raw deflate with [`DICTIONARY_1`].
const FORMAT_1: u8 = 1;

/// The most an event may inflate to. Events hold an envelope view, which the API's request
/// limits keep far below this; a value past it is corrupt, and stops before it costs memory.
const MAX_UNPACKED: usize = 16 << 20;

/// What deflate may refer back to before the first byte of an event: the keys and common values
/// of an event as the service writes it, the most frequent last (nearest). Never edit it: rows
/// packed with it can only be read with the same bytes.
const DICTIONARY_1: &[u8] = br#"{"account":"acct_","mode":"live","event":{"id":"evt_","object":"event","type":"envelope.signer_viewed","livemode":true,"created_at":"2026-01-01T00:00:00.000Z","data":{"signer":{"id":"sgn_","role":"Signer","name":"","email":"","order":2,"status":"declined"},"object":{"id":"env_","object":"envelope","livemode":true,"status":"voided","name":"","template":"tmpl_","subject":"","message":"","expires_at":"","void_reason":"","delivery":"embedded","signing_order":true,"signers":[{"id":"sgn_","role":"Signer","name":"","email":"","order":1,"status":"completed","viewed_at":"","signed_at":"","declined_at":"","decline_reason":"","auth":{"method":"access_code"},"locale":"en"}],"cc":[{"name":"","email":"@example.com"}],"documents":[{"index":2,"name":".pdf","page_count":2,"sha256":""}],"files":{"signed":true,"audit_trail":true},"metadata":{},"completed_at":"","voided_at":""}},"type":"envelope.completed"},"account":"acct_","mode":"test","event":{"id":"evt_","object":"event","type":"envelope.sent","livemode":false,"created_at":"2026-11-26T23:47:37.967Z","data":{"object":{"id":"env_","object":"envelope","livemode":false,"status":"sent","name":"contract.pdf","delivery":"email","signing_order":false,"signers":[{"id":"sgn_","role":"Client","name":"","email":"","order":1,"status":"pending","last_email":{"id":"eml_","kind":"signing_request","status":"pending","attempts":0,"created_at":"2026-11-26T23:47:37.967Z","next_attempt_at":"2026-11-26T23:48:37.967Z"}}],"cc":[],"documents":[{"index":1,"name":"contract.pdf","page_count":1,"sha256":""}],"files":{"signed":false,"audit_trail":false},"metadata":{},"created_at":"2026-11-26T23:47:37.967Z","sent_at":"2026-11-26T23:47:37.967Z"}}}}"#;

/// The packed form of `event`.
pub(crate) fn pack(event: &EventRecord) -> StoreResult<Vec<u8>> {
    fn drop_nulls(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(m) => {
                m.retain(|_, x| !x.is_null());
                m.values_mut().for_each(drop_nulls);
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(drop_nulls),
            _ => {}
        }
    }
    let fail = |e: String| StoreError::Unavailable(e.into());
    let mut v = serde_json::to_value(event).map_err(|e| fail(e.to_string()))?;
    drop_nulls(&mut v);
    let json = serde_json::to_vec(&v).map_err(|e| fail(e.to_string()))?;

    let mut deflate = Compress::new(Compression::default(), false);
    deflate
        .set_dictionary(DICTIONARY_1)
        .map_err(|e| fail(e.to_string()))?;
    // Deflate never grows its input by more than a few bytes per 16 KB block.
    let mut out = Vec::with_capacity(json.len() + json.len() / 1000 + 64);
    out.push(FORMAT_1);
    let mut crc = flate2::Crc::new();
    crc.update(&json);
    out.extend_from_slice(&crc.sum().to_le_bytes());
    loop {
        let status = deflate
            .compress_vec(
                &json[deflate.total_in() as usize..],
                &mut out,
                FlushCompress::Finish,
            )
            .map_err(|e| fail(e.to_string()))?;
        match status {
            Status::StreamEnd => return Ok(out),
            Status::Ok | Status::BufError => out.reserve(out.capacity().max(64)),
        }
    }
}

/// The JSON that `packed` holds; `what` names the row for the error.
pub(crate) fn unpack(what: &str, packed: &[u8]) -> StoreResult<Vec<u8>> {
    let corrupt = |why: &str| super::corrupt(what, format!("packed value: {why}"));
    let (&format, body) = packed.split_first().ok_or_else(|| corrupt("empty"))?;
    if format != FORMAT_1 {
        return Err(corrupt(&format!("unknown format {format}")));
    }
    let (sum, body) = body
        .split_first_chunk::<4>()
        .ok_or_else(|| corrupt("truncated"))?;
    let sum = u32::from_le_bytes(*sum);
    let mut inflate = Decompress::new(false);
    inflate
        .set_dictionary(DICTIONARY_1)
        .map_err(|e| corrupt(&e.to_string()))?;
    let mut out = Vec::with_capacity(body.len() * 6);
    loop {
        let before = (inflate.total_in(), inflate.total_out());
        let status = inflate
            .decompress_vec(
                &body[inflate.total_in() as usize..],
                &mut out,
                FlushDecompress::Finish,
            )
            .map_err(|e| corrupt(&e.to_string()))?;
        match status {
            Status::StreamEnd => {
                let mut crc = flate2::Crc::new();
                crc.update(&out);
                return if crc.sum() == sum {
                    Ok(out)
                } else {
                    Err(corrupt("checksum mismatch"))
                };
            }
            _ if out.len() >= MAX_UNPACKED => return Err(corrupt("too large")),
            _ if (inflate.total_in(), inflate.total_out()) == before
                && out.len() < out.capacity() =>
            {
                return Err(corrupt("truncated"));
            }
            _ => out.reserve(out.capacity().min(MAX_UNPACKED - out.len()).max(1024)),
        }
    }
}

/// An event row: its JSON in `doc` (rows written before schema 8), or packed.
pub(crate) fn decode_event(doc: &str, packed: Option<&[u8]>) -> StoreResult<EventRecord> {
    match packed {
        None => super::decode("event", doc),
        Some(p) => {
            serde_json::from_slice(&unpack("event", p)?).map_err(|e| super::corrupt("event", e))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{EventType, Mode, Scope, SignerRef, SignerStatus};
    use crate::store::conformance::fixtures;

    fn events() -> Vec<EventRecord> {
        let scope = Scope {
            account: crate::ids::AccountId::trusted("acct_1"),
            mode: Mode::Test,
        };
        let mut rec = fixtures::envelope(&scope);
        rec.signers[0].signer.signed_at = Some(fixtures::t(5));
        rec.subject = Some("Lease \"2027\" \u{1F600}".into());
        let mut with_signer = fixtures::event(&rec, EventType::SignerCompleted);
        with_signer.event.data.signer = Some(SignerRef {
            id: rec.signers[0].signer.id.clone(),
            role: "client".into(),
            name: "Ada".into(),
            email: "ada@example.com".into(),
            order: 1,
            status: SignerStatus::Completed,
            kind: Default::default(),
        });
        vec![fixtures::event(&rec, EventType::Created), with_signer]
    }

    /// Packed events read back equal, show every `null` again on the wire (the API and
    /// webhooks see the same bytes as before), and take a fraction of their JSON.
    #[test]
    fn events_read_back_the_same_and_take_a_fraction_of_their_json() {
        for event in events() {
            let wire = serde_json::to_string(&event.event).unwrap();
            assert!(wire.contains(":null"), "the view has nulls: {wire}");
            let json = super::super::encode(&event).unwrap();
            let packed = pack(&event).unwrap();
            assert!(
                packed.len() * 2 < json.len(),
                "{} of {}",
                packed.len(),
                json.len()
            );
            let back = decode_event("", Some(&packed)).unwrap();
            assert_eq!(back, event);
            assert_eq!(serde_json::to_string(&back.event).unwrap(), wire);
            // Rows from before schema 8 hold their JSON, nulls and all.
            assert_eq!(decode_event(&json, None).unwrap(), event);
        }
    }

    /// Anything but this module's own output is a corrupt row, never a panic or a large
    /// allocation: truncated, altered, unknown formats and a deflate bomb.
    #[test]
    fn damaged_values_are_corrupt_rows() {
        let packed = pack(&events()[0]).unwrap();
        let mut bad: Vec<Vec<u8>> = vec![
            vec![],
            vec![FORMAT_1],
            vec![FORMAT_1, 1, 2],
            vec![2, 1, 2, 3],
            packed[..packed.len() / 2].to_vec(),
            packed[..packed.len() - 1].to_vec(),
        ];
        let mut flipped = packed.clone();
        flipped[packed.len() / 2] ^= 0xff;
        bad.push(flipped);
        // 64 MiB of spaces deflate to about 64 KB: stopped at MAX_UNPACKED.
        let mut bomb = Compress::new(Compression::best(), false);
        bomb.set_dictionary(DICTIONARY_1).unwrap();
        let mut out = vec![FORMAT_1, 0, 0, 0, 0];
        out.reserve(1 << 20);
        let spaces = vec![b' '; 64 << 20];
        bomb.compress_vec(&spaces, &mut out, FlushCompress::Finish)
            .unwrap();
        bad.push(out);
        for b in bad {
            match decode_event("", Some(&b)) {
                Err(e) => assert!(e.to_string().contains("corrupt event"), "{e}"),
                Ok(e) => panic!("{} bytes read as {e:?}", b.len()),
            }
        }
    }

    /// Raw deflate alone would let a changed bit inflate to other valid JSON (a changed name or
    /// date). With the CRC, every single-bit change of a stored value either reads the very
    /// same event (the unused bits after deflate's last code) or is a corrupt row.
    #[test]
    fn no_changed_bit_reads_as_a_different_event() {
        for event in events() {
            let packed = pack(&event).unwrap();
            let (mut same, mut corrupt) = (0, 0);
            for i in 0..packed.len() {
                for bit in 0..8 {
                    let mut b = packed.clone();
                    b[i] ^= 1 << bit;
                    match decode_event("", Some(&b)) {
                        Ok(back) => {
                            assert_eq!(back, event, "byte {i} bit {bit}");
                            same += 1;
                        }
                        Err(e) => {
                            assert!(e.to_string().contains("corrupt event"), "{e}");
                            corrupt += 1;
                        }
                    }
                }
            }
            assert!(same < 8, "{same} unchanged, {corrupt} corrupt");
        }
    }
}
