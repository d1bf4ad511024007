//! `SystemTime`, `PathBuf`, and IP and socket addresses: std types with one obvious portable form.

use super::compact::write_len;
use super::{type_ids, PlainError, PlainType, Reader};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4, SocketAddrV6};
use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

const NANOS_PER_SEC: u32 = 1_000_000_000;

/// Seconds (`i64`) and nanoseconds (`u32`, below 10^9) since the Unix epoch, the nanoseconds
/// counting forward: 0.5 s before the epoch is `(-1, 500_000_000)`. A time this platform's
/// `SystemTime` cannot hold is a read error, not a clamp.
impl PlainType for SystemTime {
    const TYPE_ID: u32 = type_ids::SYSTEM_TIME;
    const STATIC_SIZE: Option<u32> = Some(12);

    fn size(&self) -> usize {
        12
    }
    fn write(&self, out: &mut Vec<u8>) {
        let (secs, nanos) = match self.duration_since(UNIX_EPOCH) {
            Ok(after) => (i128::from(after.as_secs()), after.subsec_nanos()),
            Err(before) => {
                let before = before.duration();
                match before.subsec_nanos() {
                    0 => (-i128::from(before.as_secs()), 0),
                    nanos => (-i128::from(before.as_secs()) - 1, NANOS_PER_SEC - nanos),
                }
            }
        };
        // No platform's `SystemTime` reaches past `i64` seconds (unix's `time_t` is `i64`,
        // Windows' 100 ns ticks span 58,000 years), so the clamp never changes a real time.
        let secs = secs.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64;
        secs.write(out);
        nanos.write(out);
    }
    fn read(reader: &mut Reader<'_>) -> Result<Self, PlainError> {
        let offset = reader.offset();
        let secs = i64::read(reader)?;
        let nanos = u32::read(reader)?;
        if nanos >= NANOS_PER_SEC {
            return Err(PlainError::Invalid { offset, what: "SystemTime nanoseconds out of range" });
        }
        let time = if secs >= 0 {
            UNIX_EPOCH.checked_add(Duration::new(secs.unsigned_abs(), nanos))
        } else {
            UNIX_EPOCH
                .checked_sub(Duration::from_secs(secs.unsigned_abs()))
                .and_then(|time| time.checked_add(Duration::from_nanos(u64::from(nanos))))
        };
        time.ok_or(PlainError::Invalid { offset, what: "SystemTime out of this platform's range" })
    }
}

/// The path's bytes, dynamic size. A UTF-8 path (every path a portable file should hold) is its
/// UTF-8 bytes on every platform, so files move between them. A path that is not UTF-8 keeps its
/// exact bytes on unix, where a path is any bytes; a unix reader takes any bytes back, and a
/// reader elsewhere refuses them (an error, never a guess). On other platforms a path that is
/// not valid Unicode (an unpaired UTF-16 surrogate on Windows) has no portable form and is
/// written with U+FFFD in place of the invalid part.
impl PlainType for PathBuf {
    const TYPE_ID: u32 = type_ids::PATH_BUF;
    const STATIC_SIZE: Option<u32> = None;

    fn size(&self) -> usize {
        path_bytes(self).len()
    }
    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&path_bytes(self));
    }
    fn read(reader: &mut Reader<'_>) -> Result<Self, PlainError> {
        let len = reader.remaining();
        read_path(reader, len)
    }
    fn write_compact(&self, out: &mut Vec<u8>) {
        let bytes = path_bytes(self);
        write_len(bytes.len(), "a path", out);
        out.extend_from_slice(&bytes);
    }
    fn read_compact(reader: &mut Reader<'_>) -> Result<Self, PlainError> {
        let len = reader.read_compact_count(1)?;
        read_path(reader, len)
    }
}

/// The next `len` bytes as a path.
#[inline(always)]
fn read_path(reader: &mut Reader<'_>, len: usize) -> Result<PathBuf, PlainError> {
    let offset = reader.offset();
    let bytes = reader.take(len)?;
    match std::str::from_utf8(bytes) {
        Ok(text) => Ok(PathBuf::from(text)),
        Err(_) => path_from_bytes(bytes)
            .ok_or(PlainError::Invalid { offset, what: "path is not UTF-8, and this platform takes only UTF-8 paths" }),
    }
}

#[cfg(unix)]
fn path_bytes(path: &std::path::Path) -> std::borrow::Cow<'_, [u8]> {
    use std::os::unix::ffi::OsStrExt;
    std::borrow::Cow::Borrowed(path.as_os_str().as_bytes())
}

#[cfg(not(unix))]
fn path_bytes(path: &std::path::Path) -> std::borrow::Cow<'_, [u8]> {
    match path.to_string_lossy() {
        std::borrow::Cow::Borrowed(text) => std::borrow::Cow::Borrowed(text.as_bytes()),
        std::borrow::Cow::Owned(text) => std::borrow::Cow::Owned(text.into_bytes()),
    }
}

#[cfg(unix)]
fn path_from_bytes(bytes: &[u8]) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    Some(PathBuf::from(std::ffi::OsStr::from_bytes(bytes)))
}

#[cfg(not(unix))]
fn path_from_bytes(_: &[u8]) -> Option<PathBuf> {
    None
}

/// The four octets.
impl PlainType for Ipv4Addr {
    const TYPE_ID: u32 = type_ids::IPV4_ADDR;
    const STATIC_SIZE: Option<u32> = Some(4);

    fn size(&self) -> usize {
        4
    }
    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.octets());
    }
    fn read(reader: &mut Reader<'_>) -> Result<Self, PlainError> {
        Ok(Ipv4Addr::from(reader.take_array::<4>()?))
    }
}

/// The sixteen octets.
impl PlainType for Ipv6Addr {
    const TYPE_ID: u32 = type_ids::IPV6_ADDR;
    const STATIC_SIZE: Option<u32> = Some(16);

    fn size(&self) -> usize {
        16
    }
    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.octets());
    }
    fn read(reader: &mut Reader<'_>) -> Result<Self, PlainError> {
        Ok(Ipv6Addr::from(reader.take_array::<16>()?))
    }
}

/// A version byte, `04` or `06`, then 16 bytes: the sixteen octets of a v6 address, or the four of a
/// v4 address and 12 zero bytes. Static, like `Option`, so arrays of addresses are fixed-stride.
impl PlainType for IpAddr {
    const TYPE_ID: u32 = type_ids::IP_ADDR;
    const STATIC_SIZE: Option<u32> = Some(17);

    fn size(&self) -> usize {
        17
    }
    fn write(&self, out: &mut Vec<u8>) {
        match self {
            IpAddr::V4(v4) => {
                out.push(4);
                v4.write(out);
                out.extend_from_slice(&[0; 12]);
            }
            IpAddr::V6(v6) => {
                out.push(6);
                v6.write(out);
            }
        }
    }
    fn read(reader: &mut Reader<'_>) -> Result<Self, PlainError> {
        let offset = reader.offset();
        let [version] = reader.take_array::<1>()?;
        let octets = reader.take_array::<16>()?;
        match version {
            4 if octets[4..].iter().all(|&byte| byte == 0) => {
                Ok(IpAddr::V4(Ipv4Addr::new(octets[0], octets[1], octets[2], octets[3])))
            }
            4 => Err(PlainError::Invalid { offset: offset + 5, what: "IPv4 address with nonzero padding" }),
            6 => Ok(IpAddr::V6(Ipv6Addr::from(octets))),
            _ => Err(PlainError::Invalid { offset, what: "IP address version is neither 4 nor 6" }),
        }
    }
}

/// The address as an [`IpAddr`] (17 bytes), the port (`u16`), then the IPv6 flow info and scope
/// ID (`u32` each; 0 for IPv4), so a link-local address keeps its interface.
impl PlainType for SocketAddr {
    const TYPE_ID: u32 = type_ids::SOCKET_ADDR;
    const STATIC_SIZE: Option<u32> = Some(27);

    fn size(&self) -> usize {
        27
    }
    fn write(&self, out: &mut Vec<u8>) {
        self.ip().write(out);
        self.port().write(out);
        let (flowinfo, scope_id) = match self {
            SocketAddr::V4(_) => (0, 0),
            SocketAddr::V6(v6) => (v6.flowinfo(), v6.scope_id()),
        };
        flowinfo.write(out);
        scope_id.write(out);
    }
    fn read(reader: &mut Reader<'_>) -> Result<Self, PlainError> {
        let ip = IpAddr::read(reader)?;
        let port = u16::read(reader)?;
        let offset = reader.offset();
        let flowinfo = u32::read(reader)?;
        let scope_id = u32::read(reader)?;
        match ip {
            IpAddr::V4(_) if flowinfo != 0 || scope_id != 0 => {
                Err(PlainError::Invalid { offset, what: "IPv4 socket address with IPv6 flow info or scope" })
            }
            IpAddr::V4(v4) => Ok(SocketAddr::V4(SocketAddrV4::new(v4, port))),
            IpAddr::V6(v6) => Ok(SocketAddr::V6(SocketAddrV6::new(v6, port, flowinfo, scope_id))),
        }
    }
}
