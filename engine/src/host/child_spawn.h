// How the host starts its children (the GPU worker, a launcher such as ssh): the spawn
// attributes both need, in one place.
#pragma once
#include <signal.h>
#include <spawn.h>

namespace tilelab {

// Initialises `attr` for a child: no signal blocked, SIGPIPE back to its default action (this
// process ignores it), and with `own_group` a process group of its own. Destroy it after spawning.
inline void init_child_spawn_attributes(posix_spawnattr_t& attr, bool own_group) {
    posix_spawnattr_init(&attr);
    sigset_t none, defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
    if (own_group) {
        posix_spawnattr_setpgroup(&attr, 0);
        flags |= POSIX_SPAWN_SETPGROUP;
    }
    posix_spawnattr_setflags(&attr, flags);
}

}  // namespace tilelab
