"""Common first names (Spanish and English, without accents, lower case): with a cue before it
("soy maría", "mi marido juan"), a name from this list counts even when written in lower case.
A name not listed still counts with a capital, or after "me llamo" / "my name is"."""

from __future__ import annotations

__all__ = ["FIRST_NAMES"]

FIRST_NAMES = frozenset(
    """
    adrian agustin aitana alba alberto alejandra alejandro alex alfonso alicia alvaro amparo ana
    andrea andres angel angela angeles antonia antonio araceli ariadna arturo aurora beatriz
    begona blanca borja bruno carla carlos carmen carolina catalina cecilia celia claudia
    concepcion consuelo cristian cristina daniel daniela david diana diego dolores eduardo elena
    elisa emilio encarnacion enrique esperanza esteban eva fernando francisca francisco gabriel
    gema gloria gonzalo gregorio guillermo hector helena hugo ignacio ines irene isabel ismael
    ivan jaime javier jesus joaquin jordi jorge jose josefa juan juana julia julian julio laura
    leire lidia lola lorena lorenzo lucas lucia luis luisa manuel manuela marc marco marcos
    margarita maria mariano marina mario marta martin mateo mercedes miguel milagros miriam
    monica montserrat natalia nerea nicolas noelia nuria olga oscar pablo paloma patricia paula
    pedro pilar rafael ramon raquel raul rebeca ricardo roberto rocio rosa rosario ruben sandra
    santiago sara sergio silvia sofia soledad sonia susana teresa tomas valentina vanesa vicente
    victor victoria virginia xavier yolanda
    aaron abigail adam aiden alan albert alexander alice amanda amber amelia amy andrew anna
    anne anthony arthur ashley barbara benjamin betty bob brandon brian carol caroline charles
    charlotte chloe chris christine christopher claire daisy deborah dennis donald dorothy
    dylan edward eleanor elizabeth ella emily emma eric ethan evelyn frank gary george grace
    hannah harry heather helen henry isaac isabella jack jacob james jane janet jason jeff
    jennifer jessica joan joe john jonathan joseph joshua joyce judith justin karen kate
    katherine kathleen kelly kenneth kevin kimberly larry lauren liam lily linda lisa logan
    louise lucy margaret mark mary matthew megan melissa michael michelle mike nancy nathan
    nicholas nicole noah oliver olivia patrick paul peter rachel rebecca richard robert ronald
    rose ruby ryan samantha samuel sarah scott sharon sophia sophie stephanie stephen steven
    susan thomas timothy tom tyler victoria walter william zoe
    """.split()
)
