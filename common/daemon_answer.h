// How a client of toporrd tells the daemon's own answer from a status gRPC made up.
//
// Every status a toporrd handler returns, OK or not, carries the trailing metadata
// kDaemonAnswerKey (value "1"). A failed call without it was not answered by toporrd: the
// connection could not be made or broke, or the deadline passed in the client. So an
// UNAVAILABLE with the key is the daemon's clean refusal ("database or disk is full"), to be
// shown as it is and not sent again; one without it means the daemon was not reached (or, for
// a daemon older than the key, may not have been). Header only: the daemon and its clients
// share the name.
#ifndef TOPORR_COMMON_DAEMON_ANSWER_H_
#define TOPORR_COMMON_DAEMON_ANSWER_H_

namespace toporr {

inline constexpr char kDaemonAnswerKey[] = "toporrd-answer";

}  // namespace toporr

#endif  // TOPORR_COMMON_DAEMON_ANSWER_H_
