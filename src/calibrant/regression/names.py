"""Common first names (without accents, lower case): with a cue before it ("soy maría", "mi
marido juan", "my son freya"), a name from this list counts even when written in lower case. A
name not listed still counts with a capital, after "me llamo" / "my name is", or alone on the
last line after a sign-off.

Who writes to a shop in Spain or Britain: Spanish names (the most frequent in the INE's
register, Basque, Catalan and Galician ones, and the short forms people sign with), Latin
American, Moroccan and Arabic, Romanian, Portuguese and Italian names; British, Irish, Scottish
and American names; Polish, South Asian and West African ones. Names that are mostly everyday
words after a cue are left out ("it's june", "it's max 3 items", "soy justo a tiempo": june,
max, said, justo, socorro, willow... are not listed); names that are also words but mostly
names after "soy" or "my wife" stay (rosa, blanca, mark, grace, ruby)."""

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
    abel abril adela adolfo adriana agata agueda aida aina ainara alfredo alma almudena alonso
    amador amalia amelia anabel anastasio andreu angelica anibal antonio aranzazu arnau asuncion
    aurelio baltasar barbara bartolome benito benjamin bernardo candela casimiro
    cayetana cayetano celestino cesar chema clara clemente conchi conrado constantino cristobal
    dario debora delia domingo dorotea edgar edurne eladio elias eloy elvira emilia
    emiliano encarna ernesto estefania estela estrella eugenia eugenio eusebio evaristo
    fabian fausto federico felipe felix fermin fidel filomena florencio francesc
    gaspar genoveva gerardo german gilberto gines guadalupe gustavo heriberto hilario
    horacio humberto ildefonso imanol inmaculada inma iratxe irma isaac isidoro isidro jacinto
    jacobo jenaro jeronimo joana joel josep josu juanjo juanma julen ladislao laureano
    leandro leonor leopoldo lorea lourdes lucio luciano macarena manolo marcelino marcial
    mari maribel marisa marisol maricarmen marcelo martina matias melania mercedes
    merche miguelangel moises nacho nazaret nieves noa norberto octavio olivia omar osvaldo
    pascual pasqual patricio paco paqui pepa pepe perla petra pili puri purificacion
    quique rafa reme remedios ricard rigoberto roberta rodrigo rogelio roque rosalia
    roser rufino sagrario salome salvador samuel sancho saturnino sebastian serafin severiano
    silvestre simon tania teodoro timoteo tobias toni trinidad ulises valentin
    valeria vera veronica vicenta yago yaiza zoe zoraida charo chelo concha encarni fran javi
    dani edu luisma mamen marga nando quim rafi tere txema
    aitor ander asier gorka jon mikel xabier inaki ibai oier eneko aritz julen unai iker urko
    amaia amaya ainhoa maite itziar nekane garazi ane uxue irati naroa arantxa izaskun
    idoia miren nahia haizea alaitz ekaitz koldo patxi txomin kepa joseba inigo endika
    pau pol oriol marti jaume joan pere bernat albert arnau biel roc quimet xavi
    mireia meritxell laia berta carme neus gemma montse nuria montserrat ariadna aina queralt
    xose xoan brais breixo anxo iago antia iria uxia sabela xiana noela lois uxio
    yesenia yuliana brayan jhon wilmer yeison yurani leidy johana marisela lisbeth yadira
    anderson edwin fredy wilson darwin estiven jhonatan maryuri xiomara dayana yuri ingrid
    mohamed mohammed muhammad mohammad ahmed ahmad fatima fatma aicha aisha youssef yusuf hamza
    omar karim nadia samira yasmina yasmin ali hassan hussein rachid rashid saida khadija
    zineb zainab amina hanane ibrahim ismail mustafa mostafa abdel abdelkader nabil tarik
    imane salma layla leila meryem mariam hicham driss
    ioana andrei mihai alexandru ionut florin gabriela adrian bogdan catalin claudiu cosmin
    dragos gheorghe ion iulia loredana madalina mirela nicoleta oana raluca roxana stefan vasile
    joao goncalo tiago rui nuno duarte ines beatriz leonor matilde giulia giuseppe francesca
    alessandro lorenzo matteo chiara federica
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
    leo oscar charlie alfie theo freddie archie teddy finley alexander lucas reuben
    harrison elijah rory albie ronnie jaxon louie toby frankie jude ezra louis zachary harvey
    jenson ralph elliot jesse ollie luca callum gabriel bobby felix stanley grayson jake
    frederick riley kai caleb jasper rhys lewis kian ewan euan connor conor declan
    ciaran cian padraig sean seamus eoin niall fergus hamish angus lachlan alasdair alistair
    gareth dafydd owain iwan aled emrys huw llewellyn tyrone jamal deshawn marcus darnell
    terrence malik andre jerome curtis
    isla ava mia isabella rosie sofia freya florence evie elsie sienna phoebe alice
    harper matilda emilia maya millie isabelle luna aria bethany imogen megan katie
    niamh aoife siobhan saoirse ciara orla eilidh caitlin kirsty shona fiona morag ailsa
    catriona rhiannon cerys ffion seren carys bronwen gwen shanice latoya keisha brittany
    tiffany chelsea kayla brianna madison ashleigh jodie leanne stacey tracey gemma
    kerry donna debbie julie wendy pauline maureen brenda shirley gillian lorraine lesley
    mateusz jakub kacper szymon piotr krzysztof tomasz pawel marcin lukasz michal wojciech
    zofia agnieszka katarzyna magdalena malgorzata joanna aleksandra dorota ewa
    priya rohan arjun aarav anika ananya raj ravi sanjay deepak sunita pooja neha rahul
    vikram amit anil sunil rajesh suresh lakshmi divya kavya aditya ishaan harpreet gurpreet
    manpreet jaspreet sandeep navdeep
    kwame kofi kwabena abena akosua chidi chinedu emeka obinna ngozi chiamaka adaeze
    tunde femi ade bisi funmilayo yetunde olu amara kemi
    wei jing xiao ming hui yan
    """.split()
)
