/**
 * Ctrl-C at one of zett's prompts (a server's question, a sampling approval): the prompt answers the server
 * (`cancel`, declined), and the command is interrupted (exit 130), as Ctrl-C anywhere else interrupts it.
 *
 * @internal
 */
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"

export class Quit extends Context.Tag("@zett/cli/Quit")<Quit, Deferred.Deferred<void>>() {}

/** The user quit at a prompt: the command in progress is interrupted once the prompt's answer is on its way. */
export const request = (quit: Option.Option<Deferred.Deferred<void>>): Effect.Effect<void> =>
  Option.match(quit, { onNone: () => Effect.void, onSome: (deferred) => Deferred.succeed(deferred, undefined) })

/**
 * Runs `self` until it ends, or until the user quits at a prompt, which interrupts it; a command that ended
 * after its user quit (the server answered the cancel at once) ends interrupted all the same.
 */
export const interruptible = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, Exclude<R, Quit>> =>
  Effect.flatMap(Deferred.make<void>(), (quit) => {
    const quitted = Effect.flatMap(Deferred.isDone(quit), (done) => done ? Effect.interrupt : Effect.void)
    return Effect.raceFirst(
      Effect.flatMap(Effect.exit(Effect.provideService(self, Quit, quit)), (exit) => Effect.zipRight(quitted, exit)),
      Deferred.await(quit).pipe(
        // the prompt's answer goes to the server first (the SDK writes it once the handler has returned)
        Effect.zipRight(Effect.sleep("50 millis")),
        Effect.zipRight(Effect.interrupt)
      )
    )
  })
