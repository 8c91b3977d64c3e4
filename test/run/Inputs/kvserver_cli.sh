# Every kvserver command through redis-cli (test/run/kvserver_cli.test):
# each line prints "name: reply" (redis-cli without a tty prints raw replies).
c() { redis-cli -p "$KV_PORT" "$@" 2>&1; }
t() { name=$1; shift; printf '%s: %s\n' "$name" "$(c "$@" | tr '\n' ' ')"; }
# KEYS answers in the table's order: sorted here
ts() { name=$1; shift; printf '%s: %s\n' "$name" "$(c "$@" | sort | tr '\n' ' ')"; }
t ping PING
t ping-msg PING hello
t echo ECHO "a b"
t select0 SELECT 0
t select1 SELECT 1
t set SET k1 v1
t get GET k1
t get-missing GET nothere
t set-nx-existing SET k1 other NX
t set-nx-new SET k2 v2 NX
t set-xx-missing SET k3 v3 XX
t set-xx-existing SET k2 v2b XX
t set-ex SET k4 v4 EX 10
t set-bad SET k4 v4 BOGUS
t exists EXISTS k1 k2 k3 k1
t strlen STRLEN k2
t strlen-missing STRLEN nothere
t append-new APPEND k5 abc
t append APPEND k5 defg
t get-appended GET k5
t incr-new INCR n
t incr INCR n
t incrby INCRBY n 40
t decr DECR n
t decrby DECRBY n 10
t incr-notint INCR k1
t incrby-bad INCRBY n 1.5
t incr-overflow INCRBY n 9223372036854775807
t mset MSET a 1 b 2 c 3
t mset-odd MSET a 1 b
t mget MGET a b nothere c
t dbsize DBSIZE
ts keys-all KEYS '*'
ts keys-glob KEYS 'k[1-2]'
ts keys-q KEYS '?'
t del DEL a b nothere
t dbsize-after-del DBSIZE
t arity GET
t unknown FROB x
t hello3 HELLO 3
t hello4 HELLO 4
printf 'resp3-nil: %s\n' "$(redis-cli -3 -p "$KV_PORT" GET nothere)"
t hello2 HELLO 2
t command COMMAND
t config CONFIG GET appendonly
printf 'info: %s\n' "$(c INFO | grep -E '^(amber_stats|amber_commits|db0):' | tr -d '\r' | tr '\n' ' ')"
t quit QUIT
t flushdb FLUSHDB
t dbsize-flushed DBSIZE
ts keys-none KEYS '*'
t set-after-flush SET survivor yes
t incr-after-flush INCRBY counter 7
